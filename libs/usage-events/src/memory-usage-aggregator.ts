import { queryAggregates } from './query-aggregates.ts';
import { planRecord, resolveRetention, type UsageRetention } from './record-plan.ts';
import type { UsageAggregator } from './usage-aggregator.ts';
import type { UsageEvent } from './usage-event.ts';

export interface MemoryUsageAggregatorOptions {
  retention?: Partial<UsageRetention>;
  /**
   * Request ids remembered at most; the oldest are forgotten first. In one process events
   * arrive once (no queue redelivers them), so markers only guard against a repeated emit and
   * a bounded window is enough. Default 10,000: a repeat comes within milliseconds, and every
   * marker is a long-lived object (about 150 bytes of old space, promoted at a GC's cost), so
   * 100,000 of them were 15 MB of heap kept for nothing after a busy minute.
   */
  maxMarkers?: number;
  /** Clock in ms since the epoch; tests drive it. Defaults to `Date.now`. */
  now?: () => number;
}

const DEFAULT_MAX_MARKERS = 10_000;
const SWEEP_INTERVAL_MS = 3_600_000;

interface StoredHash {
  fields: Map<string, number>;
  expiresAt: number;
}

/**
 * The aggregator for a single process (`all` without REDIS_URL): the same plan as the Redis
 * script (record-plan.ts), the same key names, the same query code, so both answer alike.
 */
export function createMemoryUsageAggregator(options: MemoryUsageAggregatorOptions = {}): UsageAggregator {
  const retention = resolveRetention(options.retention);
  const maxMarkers = options.maxMarkers ?? DEFAULT_MAX_MARKERS;
  const now = options.now ?? Date.now;
  /** marker key → expiry; insertion order is age order, as every marker gets the same TTL. */
  const markers = new Map<string, number>();
  const hashes = new Map<string, StoredHash>();

  const sweeper = setInterval(() => {
    const at = now();
    for (const [key, hash] of hashes) if (hash.expiresAt <= at) hashes.delete(key);
    forgetMarkers(at);
  }, SWEEP_INTERVAL_MS);
  sweeper.unref();

  function forgetMarkers(at: number): void {
    for (const [key, expiresAt] of markers) {
      if (expiresAt > at && markers.size <= maxMarkers) break;
      markers.delete(key);
    }
  }

  function increment(key: string, expiresAt: number, field: string, amount: number, at: number): void {
    let hash = hashes.get(key);
    if (hash === undefined || hash.expiresAt <= at) {
      hash = { fields: new Map(), expiresAt };
      hashes.set(key, hash);
    }
    hash.expiresAt = expiresAt;
    hash.fields.set(field, (hash.fields.get(field) ?? 0) + amount);
  }

  return {
    async record(event: UsageEvent): Promise<boolean> {
      const plan = planRecord(event, retention);
      const at = now();
      const seenUntil = markers.get(plan.markerKey);
      if (seenUntil !== undefined && seenUntil > at) return false;
      markers.delete(plan.markerKey);
      markers.set(plan.markerKey, at + retention.markerTtlMs);
      forgetMarkers(at);
      for (const [field, amount] of plan.increments) {
        const name = plan.fieldPrefix + field;
        increment(plan.dayKey, plan.dayExpiresAt, name, amount, at);
        increment(plan.monthKey, plan.monthExpiresAt, name, amount, at);
      }
      return true;
    },

    query: (query) =>
      queryAggregates(async (keys) => {
        const at = now();
        return keys.map((key) => {
          const hash = hashes.get(key);
          return hash === undefined || hash.expiresAt <= at ? {} : Object.fromEntries(hash.fields);
        });
      }, query),

    async close(): Promise<void> {
      clearInterval(sweeper);
    },
  };
}
