import { Redis } from 'ioredis';
import { bindRecordUsage, recordEvents } from './commands.ts';
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
/** Most events in one script call: a large job must not build one huge command. */
const MAX_EVENTS_PER_CALL = 500;

/**
 * Aggregates in Redis (key scheme in keys.ts). Recording sets the request's marker and counts
 * in the same script step (lua/record-usage-n.lua), so a request is counted once across any
 * number of deliveries, workers and crashes. A batch goes as one script call per tenant (a
 * tenant's keys share a Cluster slot, no two tenants' need to). A call that fails or times out
 * may or may not have counted; retrying it is always safe.
 */
export function createRedisUsageAggregator(options: RedisUsageAggregatorOptions): UsageAggregator {
  const retention = resolveRetention(options.retention);
  const redis = new Redis(options.url, {
    commandTimeout: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    // Commands wait for a reconnect, within the timeout, rather than fail at the first blip.
    maxRetriesPerRequest: 3,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  const recordUsage = bindRecordUsage(redis);
  // The callers see failures through rejected calls; without a listener ioredis would print
  // every reconnect error to stderr.
  redis.on('error', () => {});

  return {
    async record(events) {
      const outcomes = new Array<boolean>(events.length);
      await Promise.all(
        callsOf(events).map(async (indices) => {
          const counted = await recordEvents(recordUsage, retention, indices.map((index) => events[index] as UsageEvent));
          for (let at = 0; at < indices.length; at++) outcomes[indices[at] as number] = counted[at] as boolean;
        }),
      );
      return outcomes;
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

/** The positions of the events each script call records: per tenant, at most MAX_EVENTS_PER_CALL. */
function callsOf(events: readonly UsageEvent[]): number[][] {
  const byTenant = new Map<string, number[]>();
  const calls: number[][] = [];
  for (let index = 0; index < events.length; index++) {
    const tenantId = (events[index] as UsageEvent).tenantId;
    let call = byTenant.get(tenantId);
    if (call === undefined || call.length === MAX_EVENTS_PER_CALL) {
      call = [];
      byTenant.set(tenantId, call);
      calls.push(call);
    }
    call.push(index);
  }
  return calls;
}
