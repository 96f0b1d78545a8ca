import { Redis } from 'ioredis';
import { createTurnBatcher } from '@switchyard/redis-scripts';
import { defineUsageCommands, recordEvents } from './commands.ts';
import { queryAggregates } from './query-aggregates.ts';
import { resolveRetention, type UsageRetention } from './record-plan.ts';
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
 * Aggregates in Redis (key scheme in keys.ts). Recording sets the request's marker and counts
 * in the same script step (lua/record-usage-n.lua), so a request is counted once across any
 * number of deliveries, workers and crashes. The events recorded in one turn (a worker's batch
 * job) go as one script call per tenant. A call that fails or times out may or may not have
 * counted; retrying it is always safe.
 */
export function createRedisUsageAggregator(options: RedisUsageAggregatorOptions): UsageAggregator {
  const retention = resolveRetention(options.retention);
  const redis = new Redis(options.url, {
    commandTimeout: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    // Commands wait for a reconnect, within the timeout, rather than fail at the first blip.
    maxRetriesPerRequest: 3,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  defineUsageCommands(redis);
  const record = createTurnBatcher<UsageEvent, boolean>((events) => recordEvents(redis, retention, events));
  // The callers see failures through rejected calls; without a listener ioredis would print
  // every reconnect error to stderr.
  redis.on('error', () => {});

  return {
    record: (event: UsageEvent) => record(event.tenantId, event),

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
