import { Redis } from 'ioredis';
import { defineUsageCommands } from './commands.ts';
import { queryAggregates } from './query-aggregates.ts';
import { planRecord, resolveRetention, type UsageRetention } from './record-plan.ts';
import type { UsageAggregator } from './usage-aggregator.ts';
import type { UsageEvent } from './usage-event.ts';

export interface RedisUsageAggregatorOptions {
  url: string;
  /** Marker TTL and how long aggregates are kept; see DEFAULT_RETENTION. */
  retention?: Partial<UsageRetention>;
  /** Bound on each Redis call; a record past it fails and its job is retried. Default 5 s. */
  commandTimeoutMs?: number;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 5_000;

/**
 * Aggregates in Redis (key scheme in keys.ts). Recording is one script call that sets the
 * request's marker and counts in the same step (lua/record-usage-3.lua), so a request is
 * counted once across any number of deliveries, workers and crashes. A call that fails or
 * times out may or may not have counted; retrying it is always safe.
 */
export function createRedisUsageAggregator(options: RedisUsageAggregatorOptions): UsageAggregator {
  const retention = resolveRetention(options.retention);
  const redis = new Redis(options.url, {
    commandTimeout: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    // Commands wait for a reconnect, within the timeout, rather than fail at the first blip.
    maxRetriesPerRequest: 3,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    // A worker records a batch's events at once: they go out in one write, their replies come
    // back in one read, instead of a round trip each.
    enableAutoPipelining: true,
  });
  defineUsageCommands(redis);
  // The callers see failures through rejected calls; without a listener ioredis would print
  // every reconnect error to stderr.
  redis.on('error', () => {});

  return {
    async record(event: UsageEvent): Promise<boolean> {
      const plan = planRecord(event, retention);
      const counted = await redis.switchyardRecordUsage(
        plan.markerKey,
        plan.dayKey,
        plan.monthKey,
        String(retention.markerTtlMs),
        String(plan.dayExpiresAt),
        String(plan.monthExpiresAt),
        plan.fieldPrefix,
        ...plan.increments.flatMap(([field, amount]) => [field, String(amount)]),
      );
      return counted === 1;
    },

    query: (query) =>
      queryAggregates(async (keys) => {
        if (keys.length === 0) return [];
        const pipeline = redis.pipeline();
        for (const key of keys) pipeline.hgetall(key);
        const replies = (await pipeline.exec()) ?? [];
        return replies.map(([error, hash]) => {
          if (error !== null) throw error;
          return hash as Record<string, string>;
        });
      }, query),

    async close(): Promise<void> {
      try {
        await redis.quit();
      } catch {
        redis.disconnect();
      }
    },
  };
}
