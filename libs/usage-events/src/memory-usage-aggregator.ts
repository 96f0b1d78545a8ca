import { queryAggregates } from './query-aggregates.ts';
import { planPeriods, resolveRetention, type UsageRetention } from './record-plan.ts';
import type { UsageAggregator } from './usage-aggregator.ts';
import type { UsageEvent } from './usage-event.ts';
import { utcDayNumber } from './usage-periods.ts';
import { METRIC_FIELDS, totalsOf, type UsageMetric } from './usage-totals.ts';

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
const METRICS = Object.keys(METRIC_FIELDS) as UsageMetric[];

/**
 * The counts of one API key and model in one aggregate hash, in METRICS order. A field exists
 * in Redis once an increment to it was not zero; counts only grow, so here a count of zero is a
 * field that does not exist.
 */
type Counters = Float64Array;

/**
 * One aggregate hash: its fields (`<key>:<model>:<metric>`) grouped by their `<key>:<model>:`
 * prefix. The flat names are put together only when queried.
 */
interface StoredHash {
  groups: Map<string, Counters>;
  expiresAt: number;
}

/**
 * Where the events of one tenant, API key and model on one UTC day are counted. Nearly every
 * event lands where the one before it did, so this is kept, and recording an event is three
 * lookups by ids whose string hashes V8 has already cached, instead of building and hashing
 * the marker, hash and field names (about 3 µs an event, docs/performance.md).
 */
interface Place {
  day: number;
  dayHash: StoredHash;
  monthHash: StoredHash;
  dayCounters: Counters;
  monthCounters: Counters;
}

/** The value under `key`, made by `create` and kept on first use. */
function kept<K, V>(map: Map<K, V>, key: K, create: () => NoInfer<V>): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

// Factories rather than closures at the call sites: nothing is allocated when the value exists.
const newMap = <K, V>(): Map<K, V> => new Map<K, V>();
const newCounters = (): Counters => new Float64Array(METRICS.length);

/**
 * The aggregator for a single process (`all` without REDIS_URL): the same periods and expiries
 * as the Redis script (record-plan.ts), the same key names, the same query code, so both answer
 * alike.
 */
export function createMemoryUsageAggregator(options: MemoryUsageAggregatorOptions = {}): UsageAggregator {
  const retention = resolveRetention(options.retention);
  const maxMarkers = options.maxMarkers ?? DEFAULT_MAX_MARKERS;
  const now = options.now ?? Date.now;
  /** tenant id → request id → marker expiry. Nested rather than one map of joined names: no name is built per event. */
  const markers = new Map<string, Map<string, number>>();
  /**
   * The markers in the order they were set, a ring of `maxMarkers`: the one overwritten is the
   * oldest, forgotten unless set again since (its expiry then differs). Not the map's own
   * insertion order: a map used first in, first out keeps its deleted entries as holes at the
   * front until it is rebuilt, and finding the oldest walked past thousands of them, 8 µs an
   * event (docs/performance.md).
   */
  const ringOwners: Array<Map<string, number> | undefined> = new Array<Map<string, number> | undefined>(maxMarkers).fill(undefined);
  const ringIds: string[] = new Array<string>(maxMarkers).fill('');
  const ringExpiries = new Float64Array(maxMarkers);
  let ringNext = 0;
  const hashes = new Map<string, StoredHash>();
  /** tenant id → key id → model → where its events of the latest day were counted. */
  let places = new Map<string, Map<string, Map<string, Place>>>();

  const sweeper = setInterval(() => {
    const at = now();
    for (const [key, hash] of hashes) if (hash.expiresAt <= at) hashes.delete(key);
    // Places only save lookups; starting over bounds them to the keys and models still in use.
    places = new Map();
  }, SWEEP_INTERVAL_MS);
  sweeper.unref();

  function mark(owner: Map<string, number>, requestId: string, expiresAt: number): void {
    const oldest = ringOwners[ringNext];
    const oldestId = ringIds[ringNext] as string;
    if (oldest !== undefined && oldest.get(oldestId) === ringExpiries[ringNext]) oldest.delete(oldestId);
    owner.set(requestId, expiresAt);
    ringOwners[ringNext] = owner;
    ringIds[ringNext] = requestId;
    ringExpiries[ringNext] = expiresAt;
    ringNext = (ringNext + 1) % maxMarkers;
  }

  /** The live hash under `key`, a new one when there is none or it expired. */
  function liveHash(key: string, expiresAt: number, at: number): StoredHash {
    let hash = hashes.get(key);
    if (hash === undefined || hash.expiresAt <= at) {
      hash = { groups: new Map(), expiresAt };
      hashes.set(key, hash);
    }
    hash.expiresAt = expiresAt;
    return hash;
  }

  /**
   * The place of the event's tenant, key, model and day. A kept place is current while its
   * hashes live: a live hash is never replaced nor swept, so it is the one under its name.
   */
  function placeOf(event: UsageEvent, at: number): Place {
    const ofKey = kept(kept(places, event.tenantId, newMap), event.keyId, newMap);
    const day = utcDayNumber(event.occurredAt);
    const last = ofKey.get(event.model);
    if (last !== undefined && last.day === day && last.dayHash.expiresAt > at && last.monthHash.expiresAt > at) return last;
    const plan = planPeriods(event, retention);
    const dayHash = liveHash(plan.dayKey, plan.dayExpiresAt, at);
    const monthHash = liveHash(plan.monthKey, plan.monthExpiresAt, at);
    const place = { day, dayHash, monthHash, dayCounters: kept(dayHash.groups, plan.fieldPrefix, newCounters), monthCounters: kept(monthHash.groups, plan.fieldPrefix, newCounters) };
    ofKey.set(event.model, place);
    return place;
  }

  /** Counts one event at `at`; false when its request was counted before. */
  function recordOne(event: UsageEvent, at: number): boolean {
    const owner = kept(markers, event.tenantId, newMap);
    const seenUntil = owner.get(event.requestId);
    if (seenUntil !== undefined && seenUntil > at) return false;
    mark(owner, event.requestId, at + retention.markerTtlMs);
    const place = placeOf(event, at);
    const totals = totalsOf(event);
    for (let index = 0; index < METRICS.length; index++) {
      const amount = totals[METRICS[index] as UsageMetric];
      place.dayCounters[index] = (place.dayCounters[index] as number) + amount;
      place.monthCounters[index] = (place.monthCounters[index] as number) + amount;
    }
    return true;
  }

  return {
    async record(events) {
      const at = now();
      const outcomes = new Array<boolean>(events.length);
      for (let index = 0; index < events.length; index++) outcomes[index] = recordOne(events[index] as UsageEvent, at);
      return outcomes;
    },

    query: (query) =>
      queryAggregates(async (keys) => {
        const at = now();
        return keys.map((key) => {
          const hash = hashes.get(key);
          const fields: Record<string, number> = {};
          if (hash === undefined || hash.expiresAt <= at) return fields;
          for (const [prefix, counters] of hash.groups) {
            counters.forEach((count, index) => {
              if (count !== 0) fields[prefix + METRIC_FIELDS[METRICS[index] as UsageMetric]] = count;
            });
          }
          return fields;
        });
      }, query),

    async close(): Promise<void> {
      clearInterval(sweeper);
    },
  };
}
