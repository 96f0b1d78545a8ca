import { queryAggregates } from './query-aggregates.ts';
import { planRecord, resolveRetention, type RecordPlan, type UsageRetention } from './record-plan.ts';
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

/**
 * One aggregate hash. Its fields (`<key>:<model>:<metric>`) are kept grouped by their
 * `<key>:<model>:` prefix, so recording an event looks up its prefix once and then each metric
 * by a constant name, instead of building and hashing a field name per metric. The flat names
 * are put together only when queried.
 */
interface StoredHash {
  groups: Map<string, Map<string, number>>;
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
  /** marker key → expiry. */
  const markers = new Map<string, number>();
  /**
   * The markers in the order they were set, a ring of `maxMarkers`: the one overwritten is the
   * oldest, forgotten unless set again since (its expiry then differs). Not the map's own
   * insertion order: a map used first in, first out keeps its deleted entries as holes at the
   * front until it is rebuilt, and finding the oldest walked past thousands of them, 8 µs an
   * event (docs/performance.md).
   */
  const ring: Array<string | undefined> = new Array<string | undefined>(maxMarkers).fill(undefined);
  const ringExpiries = new Float64Array(maxMarkers);
  let ringNext = 0;
  const hashes = new Map<string, StoredHash>();

  const sweeper = setInterval(() => {
    const at = now();
    for (const [key, hash] of hashes) if (hash.expiresAt <= at) hashes.delete(key);
  }, SWEEP_INTERVAL_MS);
  sweeper.unref();

  function mark(key: string, expiresAt: number): void {
    const oldest = ring[ringNext];
    if (oldest !== undefined && markers.get(oldest) === ringExpiries[ringNext]) markers.delete(oldest);
    markers.set(key, expiresAt);
    ring[ringNext] = key;
    ringExpiries[ringNext] = expiresAt;
    ringNext = (ringNext + 1) % maxMarkers;
  }

  function add(key: string, expiresAt: number, prefix: string, increments: RecordPlan['increments'], at: number): void {
    let hash = hashes.get(key);
    if (hash === undefined || hash.expiresAt <= at) {
      hash = { groups: new Map(), expiresAt };
      hashes.set(key, hash);
    }
    hash.expiresAt = expiresAt;
    let group = hash.groups.get(prefix);
    if (group === undefined) {
      group = new Map();
      hash.groups.set(prefix, group);
    }
    for (const [metric, amount] of increments) group.set(metric, (group.get(metric) ?? 0) + amount);
  }

  return {
    async record(event: UsageEvent): Promise<boolean> {
      const plan = planRecord(event, retention);
      const at = now();
      const seenUntil = markers.get(plan.markerKey);
      if (seenUntil !== undefined && seenUntil > at) return false;
      mark(plan.markerKey, at + retention.markerTtlMs);
      add(plan.dayKey, plan.dayExpiresAt, plan.fieldPrefix, plan.increments, at);
      add(plan.monthKey, plan.monthExpiresAt, plan.fieldPrefix, plan.increments, at);
      return true;
    },

    query: (query) =>
      queryAggregates(async (keys) => {
        const at = now();
        return keys.map((key) => {
          const hash = hashes.get(key);
          const fields: Record<string, number> = {};
          if (hash === undefined || hash.expiresAt <= at) return fields;
          for (const [prefix, group] of hash.groups) for (const [metric, count] of group) fields[prefix + metric] = count;
          return fields;
        });
      }, query),

    async close(): Promise<void> {
      clearInterval(sweeper);
    },
  };
}
