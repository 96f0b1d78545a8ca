import { redisTest } from '@switchyard/testkit';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { describe, expect, it, onTestFinished } from 'vitest';
import { inlineIncludes } from './commands.ts';
import { MAX_LIMIT, PERIOD_MS } from './constants.ts';
import { admitToBucket, bucketWindow, chargeBucket, drainBucket, type Bucket } from './gcra.ts';

interface Arrival {
  at: number;
  cost: number;
}

/** Feeds arrivals through the pure maths the way both limiters do; returns the admitted ones. */
function simulate(limit: number, arrivals: readonly Arrival[]): Arrival[] {
  let bucket: Bucket | undefined;
  const admitted: Arrival[] = [];
  for (const arrival of arrivals) {
    const decision = admitToBucket(drainBucket(bucket, limit, arrival.at), limit, arrival.cost);
    if (decision.allowed) {
      bucket = { level: decision.level, at: arrival.at };
      admitted.push(arrival);
    }
  }
  return admitted;
}

/** Sorted arrival times over a few minutes, bunched enough to hit the limit often. */
const arrivalsArbitrary = (maxCost: number) =>
  fc
    .array(fc.record({ gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 30_000 })), cost: fc.integer({ min: 0, max: maxCost }) }), {
      maxLength: 200,
    })
    .map((steps) => {
      let at = 1_760_000_000_000;
      return steps.map(({ gap, cost }) => ({ at: (at += gap), cost }));
    });

describe('GCRA maths', () => {
  it('should admit a fresh scope its whole limit at once and not one unit more', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.array(fc.integer({ min: 1, max: 5_000 }), { maxLength: 100 }), (limit, costs) => {
        const at = 1_760_000_000_000;
        const admitted = simulate(limit, costs.map((cost) => ({ at, cost })));
        const total = admitted.reduce((sum, arrival) => sum + arrival.cost, 0);
        expect(total).toBeLessThanOrEqual(limit);
        // Greedy: an arrival is refused only when it no longer fits.
        let used = 0;
        for (const cost of costs) if (cost <= limit - used) used += cost;
        expect(total).toBe(used);
      }),
    );
  });

  it('should never admit more than limit + w × limit / 60 s in any window of w ms', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000 }), arrivalsArbitrary(400), (limit, arrivals) => {
        const admitted = simulate(limit, arrivals);
        for (let first = 0; first < admitted.length; first += 1) {
          let total = 0;
          for (let last = first; last < admitted.length; last += 1) {
            const { at, cost } = admitted[last] as Arrival;
            total += cost;
            const width = at - (admitted[first] as Arrival).at;
            expect(total * PERIOD_MS).toBeLessThanOrEqual(limit * PERIOD_MS + width * limit);
          }
        }
      }),
    );
  });

  it('should admit nearly twice the limit within 60 s when a full burst is followed by the refill', () => {
    // GCRA, not a sliding log: the bound above is tight, so "limit per any 60 s" does not hold.
    const limit = 10;
    const start = 1_760_000_000_000;
    const burst = Array.from({ length: limit }, () => ({ at: start, cost: 1 }));
    const refill = Array.from({ length: limit }, (_, index) => ({ at: start + ((index + 1) * PERIOD_MS) / limit - 1, cost: 1 }));
    expect(simulate(limit, [...burst, ...refill]).length).toBe(2 * limit - 1);
  });

  it('should admit a refused cost exactly retryAfterMs later and not a millisecond sooner', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 0, max: 200_000 }), fc.integer({ min: 1, max: 100_000 }), (limit, used, cost) => {
        fc.pre(cost <= limit);
        const level = Math.min(used, limit) * PERIOD_MS;
        const decision = admitToBucket(level, limit, cost);
        fc.pre(!decision.allowed);
        const bucket = { level, at: 0 };
        expect(decision.retryAfterMs).toBeGreaterThan(0);
        expect(admitToBucket(drainBucket(bucket, limit, decision.retryAfterMs), limit, cost).allowed).toBe(true);
        expect(admitToBucket(drainBucket(bucket, limit, decision.retryAfterMs - 1), limit, cost).allowed).toBe(false);
      }),
    );
  });

  it('should never admit a cost larger than the limit, and say waiting will not help', () => {
    expect(admitToBucket(0, 100, 101)).toEqual({ allowed: false, exceedsLimit: true, level: 0, retryAfterMs: 0 });
    expect(admitToBucket(0, 0, 0)).toEqual({ allowed: false, exceedsLimit: true, level: 0, retryAfterMs: 0 });
  });

  it('should give back no more than is in use on a negative correction, and carry a positive one as debt', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: -20_000, max: 20_000 }), (used, delta) => {
        const level = chargeBucket(used * PERIOD_MS, delta);
        expect(level).toBe(Math.max(0, used + delta) * PERIOD_MS);
      }),
    );
    // 150 tokens in a 100-per-minute bucket: the next token waits for the debt to drain.
    const decision = admitToBucket(chargeBucket(100 * PERIOD_MS, 50), 100, 1);
    expect(decision).toMatchObject({ allowed: false, exceedsLimit: false, retryAfterMs: 30_600 });
  });

  it('should describe the window for the rate-limit headers', () => {
    expect(bucketWindow(0, 60)).toEqual({ limit: 60, remaining: 60, resetMs: 0 });
    // 59 of 60 used: one left, and back to 60 once 59 seconds have drained.
    expect(bucketWindow(59 * PERIOD_MS, 60)).toEqual({ limit: 60, remaining: 1, resetMs: 59_000 });
    expect(bucketWindow(70 * PERIOD_MS, 60)).toEqual({ limit: 60, remaining: 0, resetMs: 70_000 });
  });

  redisTest('should compute exactly what lua/includes/gcra.lua computes, up to the largest limits', async ({ redisUrl }) => {
    // The whole-limiter equivalence (redis-limiter.test.ts) covers histories with small limits;
    // this covers the arithmetic alone across the full range, where doubles could round.
    const redis = new Redis(redisUrl);
    onTestFinished(() => redis.disconnect());
    const script = inlineIncludes(
      [
        '--- @include "constants"',
        '--- @include "gcra"',
        'local limit = tonumber(ARGV[2])',
        'local allowed, exceeds_limit, level, retry_after_ms = admit_to_bucket(tonumber(ARGV[1]), limit, tonumber(ARGV[3]))',
        'local remaining, reset_ms = bucket_window(level, limit)',
        'return { allowed and 1 or 0, exceeds_limit and 1 or 0, integer_string(level), retry_after_ms, remaining, reset_ms }',
      ].join('\n'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: MAX_LIMIT }).chain((limit) =>
          fc.tuple(fc.constant(limit), fc.integer({ min: 0, max: 2 * limit * PERIOD_MS }), fc.oneof(fc.integer({ min: 0, max: limit + 1 }), fc.integer({ min: 0, max: MAX_LIMIT + 1 }))),
        ),
        async ([limit, level, cost]) => {
          const decision = admitToBucket(level, limit, cost);
          const window = bucketWindow(decision.level, limit);
          const reply = await redis.eval(script, 0, String(level), String(limit), String(cost));
          expect(reply).toEqual([
            Number(decision.allowed),
            Number(decision.exceedsLimit),
            String(decision.level),
            decision.retryAfterMs,
            window.remaining,
            window.resetMs,
          ]);
        },
      ),
      { numRuns: 500 },
    );
  });
});
