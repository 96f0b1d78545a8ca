import { EXPIRY_MARGIN_MS, PERIOD_MS } from './constants.ts';
import type { WindowState } from './limiter.ts';

/**
 * GCRA in its continuous-state form (ITU-T I.371's "leaky bucket" formulation, equivalent to
 * the virtual-scheduling one that stores a theoretical arrival time): `level` is how much of
 * the limit is in use, drained at the limit's rate.
 *
 * Units make it exact integer arithmetic, identical in TypeScript and in Lua (both use doubles,
 * exact below 2^53): time is whole milliseconds and `level` is cost × PERIOD_MS, so a limit of
 * L per minute drains exactly L level units per millisecond. The theoretical arrival time is
 * `at + level / limit`.
 *
 * Burst is the whole limit: an idle scope admits L at once, then L more per minute as it drains.
 * So a window of w ms never admits more than L + w·L/60000 — up to 2L in a 60 s window that
 * starts with a full burst; a hard "L in any 60 s" needs a log of every admission instead.
 */
export interface Bucket {
  level: number;
  /** When `level` was computed (ms). */
  at: number;
}

/** Level at `now` after draining since the last write; 0 for a scope never seen or fully drained. */
export function drainBucket(bucket: Bucket | undefined, limit: number, now: number): number {
  if (bucket === undefined) return 0;
  const elapsed = Math.max(0, now - bucket.at);
  return Math.max(0, bucket.level - elapsed * limit);
}

export interface BucketDecision {
  allowed: boolean;
  /** The cost alone is more than the limit (or the limit is 0): no wait will admit it. */
  exceedsLimit: boolean;
  /** Level after admission if allowed, else unchanged. */
  level: number;
  /** Exact wait until this cost fits, when refused and not `exceedsLimit`. */
  retryAfterMs: number;
}

export function admitToBucket(level: number, limit: number, cost: number): BucketDecision {
  if (limit === 0 || cost > limit) return { allowed: false, exceedsLimit: true, level, retryAfterMs: 0 };
  const needed = level + cost * PERIOD_MS;
  const capacity = limit * PERIOD_MS;
  if (needed <= capacity) return { allowed: true, exceedsLimit: false, level: needed, retryAfterMs: 0 };
  return { allowed: false, exceedsLimit: false, level, retryAfterMs: Math.ceil((needed - capacity) / limit) };
}

/**
 * Applies a correction after the fact. A positive delta may push the level past the limit (the
 * tokens were really used), which delays later admissions; a negative one gives back at most
 * what is still in use.
 */
export function chargeBucket(level: number, delta: number): number {
  return Math.max(0, level + delta * PERIOD_MS);
}

export function bucketWindow(level: number, limit: number): WindowState {
  return {
    limit,
    remaining: Math.max(0, Math.floor((limit * PERIOD_MS - level) / PERIOD_MS)),
    resetMs: limit === 0 ? 0 : Math.ceil(level / limit),
  };
}

/** How long to keep a stored level: until it has drained, plus the margin. */
export function bucketTtlMs(level: number, limit: number): number {
  return bucketWindow(level, limit).resetMs + EXPIRY_MARGIN_MS;
}
