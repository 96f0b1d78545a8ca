import { redisTest } from '@switchyard/testkit';
import { describe, expect, onTestFinished } from 'vitest';
import type { AdmissionRequest, Limiter, LimitSet } from './limiter.ts';
import { createMemoryLimiter } from './memory-limiter.ts';
import { createRedisLimiterWithClock } from './redis-limiter.ts';

// The behaviour both limiters promise, checked on each with the same fake clock. The Redis
// limiter receives that clock through the scripts' test-only `now` argument.

const HOUR_MS = 3_600_000;

interface Harness {
  limiter: Limiter;
  advance(ms: number): void;
  admit(overrides?: Partial<AdmissionRequest>): ReturnType<Limiter['admit']>;
}

type CreateLimiter = (redisUrl: string, now: () => number, concurrencyLeaseMs: number | undefined) => Limiter;

const implementations: { name: string; create: CreateLimiter }[] = [
  { name: 'memory limiter', create: (_redisUrl, now, concurrencyLeaseMs) => createMemoryLimiter({ now, concurrencyLeaseMs }) },
  { name: 'redis limiter', create: (redisUrl, now, concurrencyLeaseMs) => createRedisLimiterWithClock({ url: redisUrl, concurrencyLeaseMs }, now) },
];

describe.each(implementations)('$name', ({ create }) => {
  let requestCounter = 0;

  function open(redisUrl: string, limits: { tenant?: LimitSet; key?: LimitSet }, options: { start?: number; leaseMs?: number } = {}): Harness {
    let now = options.start ?? Date.UTC(2026, 7, 14, 12);
    const limiter = create(redisUrl, () => now, options.leaseMs);
    onTestFinished(() => limiter.close());
    return {
      limiter,
      advance: (ms) => {
        now += ms;
      },
      admit: (overrides = {}) =>
        limiter.admit({
          tenantId: 'acme',
          keyId: 'ci',
          requestId: `request-${(requestCounter += 1)}`,
          tenantLimits: limits.tenant ?? {},
          keyLimits: limits.key ?? {},
          estimatedTokens: 0,
          ...overrides,
        }),
    };
  }

  redisTest('should admit the whole rpm at once, refuse the next, and admit again exactly retryAfterMs later', async ({ redisUrl }) => {
    // 400 ms into a second: that second's slot counts until 61 s after its start, 60.6 s from now.
    const harness = open(redisUrl, { tenant: { rpm: 5 } }, { start: Date.UTC(2026, 7, 14, 12) + 400 });
    for (let index = 0; index < 5; index += 1) expect((await harness.admit()).allowed).toBe(true);
    const refused = await harness.admit();
    expect(refused).toEqual({
      allowed: false,
      limit: 'requests',
      scope: 'tenant',
      retryAfterMs: 60_600,
      requests: { limit: 5, remaining: 0, resetMs: 60_600 },
      degraded: false,
    });
    harness.advance(60_599);
    expect((await harness.admit()).allowed).toBe(false);
    harness.advance(1);
    expect(await harness.admit()).toEqual({
      allowed: true,
      retryAfterMs: 0,
      requests: { limit: 5, remaining: 4, resetMs: 61_000 },
      admittedAt: Date.UTC(2026, 7, 14, 12, 1, 1),
      degraded: false,
    });
  });

  redisTest('should never admit more than rpm in any 60 s, a burst followed by a steady trickle included', async ({ redisUrl }) => {
    const harness = open(redisUrl, { tenant: { rpm: 10 } });
    const admittedAt: number[] = [];
    // A request every 500 ms for three minutes: 360 attempts against 10 per minute.
    for (let step = 0; step < 360; step += 1) {
      const result = await harness.admit();
      if (result.allowed) admittedAt.push(result.admittedAt ?? Number.NaN);
      harness.advance(500);
    }
    for (const [index, at] of admittedAt.entries()) {
      expect(admittedAt.filter((other, otherIndex) => otherIndex >= index && other < at + 60_000).length).toBeLessThanOrEqual(10);
    }
    // Strict but not stingy: 10 each 61 s, the price of counting whole 1 s slots.
    expect(admittedAt.length).toBe(30);
  });

  redisTest('should describe the tighter of the tenant and key windows for the headers', async ({ redisUrl }) => {
    const harness = open(redisUrl, { tenant: { rpm: 10, tpm: 1_000 }, key: { rpm: 3, tpm: 10_000 } });
    expect(await harness.admit({ estimatedTokens: 100 })).toMatchObject({
      requests: { limit: 3, remaining: 2, resetMs: 61_000 },
      tokens: { limit: 1_000, remaining: 900, resetMs: 61_000 },
    });
    harness.advance(30_500);
    // A free request charges no tokens: their reset is still when the first request's slot
    // leaves; the requests reset moves to when this one's slot leaves.
    expect(await harness.admit({ estimatedTokens: 0, keyId: 'other', keyLimits: {} })).toMatchObject({
      requests: { limit: 10, remaining: 8, resetMs: 60_500 },
      tokens: { limit: 1_000, remaining: 900, resetMs: 30_500 },
    });
  });

  redisTest('should never hold more slots than the concurrency limit, free one on release, and ignore a repeated release', async ({ redisUrl }) => {
    const harness = open(redisUrl, { tenant: { concurrency: 2 } });
    const first = { tenantId: 'acme', keyId: 'ci', requestId: 'first' };
    expect((await harness.admit({ requestId: 'first' })).allowed).toBe(true);
    expect((await harness.admit({ requestId: 'second' })).allowed).toBe(true);
    expect(await harness.admit({ requestId: 'third' })).toMatchObject({ allowed: false, limit: 'concurrency', scope: 'tenant', retryAfterMs: 1_000 });
    await harness.limiter.release(first);
    await harness.limiter.release(first);
    expect((await harness.admit({ requestId: 'third' })).allowed).toBe(true);
    expect((await harness.admit({ requestId: 'fourth' })).allowed).toBe(false);
  });

  redisTest('should free the slots of a caller that never released once their lease expires', async ({ redisUrl }) => {
    const harness = open(redisUrl, { key: { concurrency: 1 } }, { leaseMs: 10_000 });
    expect((await harness.admit()).allowed).toBe(true);
    harness.advance(9_999);
    expect(await harness.admit()).toMatchObject({ allowed: false, limit: 'concurrency', scope: 'key' });
    harness.advance(1);
    expect((await harness.admit()).allowed).toBe(true);
  });

  redisTest('should reserve estimated tokens and give them back to the reservation slot on a negative reconcile', async ({ redisUrl }) => {
    const limits = { tenant: { tpm: 1_000 } };
    const harness = open(redisUrl, limits);
    const first = await harness.admit({ estimatedTokens: 600 });
    expect(first).toMatchObject({ allowed: true, admittedAt: Date.UTC(2026, 7, 14, 12) });
    harness.advance(10_000);
    expect(await harness.admit({ estimatedTokens: 600 })).toMatchObject({ allowed: false, limit: 'tokens', scope: 'tenant', retryAfterMs: 51_000 });
    // Without the admission time the windows keep the estimate: they cannot tell which slot to credit.
    await harness.limiter.reconcile({ tenantId: 'acme', keyId: 'ci', tenantLimits: limits.tenant, keyLimits: {}, deltaTokens: -500 });
    expect(await harness.admit({ estimatedTokens: 600 })).toMatchObject({ allowed: false, limit: 'tokens' });
    await harness.limiter.reconcile({ tenantId: 'acme', keyId: 'ci', tenantLimits: limits.tenant, keyLimits: {}, deltaTokens: -500, admittedAt: first.admittedAt });
    // 100 left in the first slot, 600 now in this one: the reset follows the newest.
    expect(await harness.admit({ estimatedTokens: 600 })).toMatchObject({ allowed: true, tokens: { limit: 1_000, remaining: 300, resetMs: 61_000 } });
  });

  redisTest('should give tokens back to the reservation slot, not to a later one', async ({ redisUrl }) => {
    const limits = { tenant: { tpm: 1_000 } };
    const harness = open(redisUrl, limits);
    const early = await harness.admit({ estimatedTokens: 400 });
    harness.advance(30_000);
    expect((await harness.admit({ estimatedTokens: 400 })).allowed).toBe(true);
    // The early answer used nothing: its 400 go back to its own slot, not to this newer one.
    await harness.limiter.reconcile({ tenantId: 'acme', keyId: 'ci', tenantLimits: limits.tenant, keyLimits: {}, deltaTokens: -400, admittedAt: early.admittedAt });
    expect((await harness.admit({ estimatedTokens: 600 })).allowed).toBe(true);
    // Past the early slot, 1,000 are counted: the 400 and the 600 of the newer slot. Had the
    // 400 been given to the newer slot, 400 more would fit here: 1,400 in one minute.
    harness.advance(31_000);
    expect(await harness.admit({ estimatedTokens: 1 })).toMatchObject({ allowed: false, limit: 'tokens', retryAfterMs: 30_000 });
  });

  redisTest('should give tokens back while the reservation slot counts, and nothing once it has left', async ({ redisUrl }) => {
    const limits = { tenant: { tpm: 1_000 } };
    const harness = open(redisUrl, limits);
    const reconcile = (deltaTokens: number, admittedAt: number | undefined) =>
      harness.limiter.reconcile({ tenantId: 'acme', keyId: 'ci', tenantLimits: limits.tenant, keyLimits: {}, deltaTokens, admittedAt });
    const reservation = await harness.admit({ estimatedTokens: 500 });
    // 60 s on, the reservation's slot is the oldest that still counts.
    harness.advance(60_000);
    expect((await harness.admit({ estimatedTokens: 500 })).allowed).toBe(true);
    await reconcile(-200, reservation.admittedAt);
    expect((await harness.admit({ estimatedTokens: 200 })).allowed).toBe(true);
    // 61 s on, it has left: 700 counted, then 100 more in the current slot.
    harness.advance(1_000);
    expect((await harness.admit({ estimatedTokens: 100 })).allowed).toBe(true);
    // What it still had to give back is gone with it: no other slot is credited.
    await reconcile(-300, reservation.admittedAt);
    expect(await harness.admit({ estimatedTokens: 201 })).toMatchObject({ allowed: false, limit: 'tokens', retryAfterMs: 60_000 });
    expect((await harness.admit({ estimatedTokens: 200 })).allowed).toBe(true);
  });

  redisTest('should wait for as many of the oldest slots as the refused cost needs, after give-backs too', async ({ redisUrl }) => {
    const limits = { tenant: { tpm: 1_000 } };
    const harness = open(redisUrl, limits);
    const first = await harness.admit({ estimatedTokens: 600 });
    harness.advance(10_000);
    expect((await harness.admit({ estimatedTokens: 300 })).allowed).toBe(true);
    await harness.limiter.reconcile({ tenantId: 'acme', keyId: 'ci', tenantLimits: limits.tenant, keyLimits: {}, deltaTokens: -200, admittedAt: first.admittedAt });
    // 400 + 300 counted. 200 more need only the first slot gone (51 s); 500 more need both (61 s).
    expect(await harness.admit({ estimatedTokens: 500 })).toMatchObject({ allowed: false, retryAfterMs: 51_000 });
    expect(await harness.admit({ estimatedTokens: 800 })).toMatchObject({ allowed: false, retryAfterMs: 61_000 });
  });

  redisTest('should carry usage above the estimate as debt in the current slot', async ({ redisUrl }) => {
    const limits = { key: { tpm: 1_000 } };
    const harness = open(redisUrl, limits);
    expect((await harness.admit({ estimatedTokens: 100 })).allowed).toBe(true);
    harness.advance(10_250);
    await harness.limiter.reconcile({ tenantId: 'acme', keyId: 'ci', tenantLimits: {}, keyLimits: limits.key, deltaTokens: 1_000 });
    // 1,100 counted: one more token needs 101 gone, so the debt's slot too, 61 s after its start.
    expect(await harness.admit({ estimatedTokens: 1 })).toMatchObject({
      allowed: false,
      limit: 'tokens',
      scope: 'key',
      retryAfterMs: 60_750,
      tokens: { limit: 1_000, remaining: 0, resetMs: 60_750 },
    });
    // Even a request of no tokens waits, until the first slot has left and the debt alone is counted.
    expect(await harness.admit({ estimatedTokens: 0 })).toMatchObject({ allowed: false, retryAfterMs: 50_750 });
  });

  redisTest('should refuse a spent daily budget until the next UTC day', async ({ redisUrl }) => {
    const harness = open(redisUrl, { tenant: { dailyTokens: 1_000 } }, { start: Date.UTC(2026, 7, 14, 23) });
    expect((await harness.admit({ estimatedTokens: 600 })).allowed).toBe(true);
    expect(await harness.admit({ estimatedTokens: 600 })).toMatchObject({ allowed: false, limit: 'budget', scope: 'tenant', retryAfterMs: HOUR_MS });
    harness.advance(HOUR_MS);
    expect((await harness.admit({ estimatedTokens: 600 })).allowed).toBe(true);
  });

  redisTest('should charge reconciled usage to a monthly budget that lasts until the next month', async ({ redisUrl }) => {
    const limits = { key: { monthlyTokens: 1_000 } };
    const harness = open(redisUrl, limits, { start: Date.UTC(2026, 1, 27) });
    expect((await harness.admit({ estimatedTokens: 100 })).allowed).toBe(true);
    await harness.limiter.reconcile({ tenantId: 'acme', keyId: 'ci', tenantLimits: {}, keyLimits: limits.key, deltaTokens: 900 });
    expect(await harness.admit({ estimatedTokens: 1 })).toMatchObject({ allowed: false, limit: 'budget', scope: 'key', retryAfterMs: 48 * HOUR_MS });
    harness.advance(24 * HOUR_MS);
    expect((await harness.admit({ estimatedTokens: 1 })).allowed).toBe(false);
    harness.advance(24 * HOUR_MS);
    expect((await harness.admit({ estimatedTokens: 1 })).allowed).toBe(true);
  });

  redisTest('should refuse on a key limit alone and charge the tenant nothing for the refusal', async ({ redisUrl }) => {
    const harness = open(redisUrl, { tenant: { rpm: 10 }, key: { rpm: 1 } });
    expect((await harness.admit()).allowed).toBe(true);
    for (let index = 0; index < 5; index += 1) expect(await harness.admit()).toMatchObject({ allowed: false, limit: 'requests', scope: 'key' });
    // Another key of the same tenant, without a limit of its own, gets the 9 the tenant has left.
    const admittedForOtherKey = [];
    for (let index = 0; index < 10; index += 1) admittedForOtherKey.push((await harness.admit({ keyId: 'other', keyLimits: {} })).allowed);
    expect(admittedForOtherKey.filter(Boolean)).toHaveLength(9);
  });

  redisTest('should charge no limit when another one refuses', async ({ redisUrl }) => {
    const harness = open(redisUrl, { tenant: { rpm: 2, tpm: 100, concurrency: 5, dailyTokens: 1_000 } });
    expect((await harness.admit({ estimatedTokens: 100 })).allowed).toBe(true);
    expect(await harness.admit({ estimatedTokens: 100, requestId: 'refused' })).toMatchObject({ allowed: false, limit: 'tokens' });
    // The refused request took no request, no slot and no budget: a free request still fits,
    // and a repeated admit of the refused id is not mistaken for one holding a slot.
    expect((await harness.admit({ estimatedTokens: 0 })).allowed).toBe(true);
    expect(await harness.admit({ estimatedTokens: 0 })).toMatchObject({ allowed: false, limit: 'requests' });
  });

  redisTest('should say waiting will not help when the request alone exceeds a limit', async ({ redisUrl }) => {
    const harness = open(redisUrl, { tenant: { tpm: 100 }, key: { dailyTokens: 50 } });
    expect(await harness.admit({ estimatedTokens: 101 })).toEqual({
      allowed: false,
      limit: 'tokens',
      scope: 'tenant',
      retryAfterMs: 0,
      exceedsLimit: true,
      tokens: { limit: 100, remaining: 100, resetMs: 0 },
      degraded: false,
    });
    expect(await harness.admit({ estimatedTokens: 60 })).toMatchObject({ allowed: false, limit: 'budget', scope: 'key', exceedsLimit: true });
    expect(await open(redisUrl, { key: { rpm: 0 } }).admit()).toMatchObject({ allowed: false, limit: 'requests', exceedsLimit: true });
  });

  redisTest('should report the limit the request would wait longest for', async ({ redisUrl }) => {
    const harness = open(redisUrl, { tenant: { rpm: 1 }, key: { dailyTokens: 10 } });
    expect((await harness.admit({ estimatedTokens: 5 })).allowed).toBe(true);
    // Both refuse: the minute frees in 60 s, the budget at midnight, 12 hours away.
    expect(await harness.admit({ estimatedTokens: 10 })).toMatchObject({ allowed: false, limit: 'budget', scope: 'key', retryAfterMs: 12 * HOUR_MS });
  });

  redisTest('should admit a request that has no limits', async ({ redisUrl }) => {
    expect(await open(redisUrl, {}).admit({ estimatedTokens: 1_000_000 })).toEqual({ allowed: true, retryAfterMs: 0, degraded: false });
  });

  redisTest('should reject limits that are not whole non-negative numbers', async ({ redisUrl }) => {
    await expect(open(redisUrl, { tenant: { rpm: 1.5 } }).admit()).rejects.toThrow(RangeError);
    await expect(open(redisUrl, { key: { tpm: -1 } }).admit()).rejects.toThrow(RangeError);
    await expect(open(redisUrl, {}).admit({ estimatedTokens: Number.NaN })).rejects.toThrow(RangeError);
  });
});
