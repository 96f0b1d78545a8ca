import { getFreePort, redisTest, startRedis } from '@switchyard/testkit';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { AdmissionRequest, Limiter, LimitSet } from './limiter.ts';
import { createMemoryLimiter } from './memory-limiter.ts';
import { createRedisLimiter, createRedisLimiterWithClock, type RedisLimiterOptions } from './redis-limiter.ts';

const HOUR_MS = 3_600_000;

function openLimiter(options: RedisLimiterOptions): Limiter {
  const limiter = createRedisLimiter(options);
  onTestFinished(() => limiter.close());
  return limiter;
}

function request(overrides: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return { tenantId: 'acme', keyId: 'ci', requestId: crypto.randomUUID(), tenantLimits: {}, keyLimits: {}, estimatedTokens: 0, ...overrides };
}

/**
 * Makes Redis stop answering without closing connections, as a stalled server or a network
 * black hole would: a script spins until `resume` kills it. Redis serves SCRIPT KILL only once
 * the script has run for busy-reply-threshold, so that is how long the hang lasts at least.
 */
async function hangRedis(url: string, atLeastMs: number): Promise<{ resume(): Promise<void> }> {
  const admin = new Redis(url);
  const blocker = new Redis(url);
  await admin.config('SET', 'busy-reply-threshold', String(atLeastMs));
  const hung = Date.now();
  blocker.eval('while true do end', 0).catch(() => undefined);
  await sleep(20);
  return {
    async resume() {
      await sleep(Math.max(0, hung + atLeastMs - Date.now()));
      await vi.waitFor(() => admin.script('KILL'), { timeout: 5_000, interval: 50 });
      admin.disconnect();
      blocker.disconnect();
    },
  };
}

describe('redis limiter across replicas', () => {
  redisTest('should admit exactly rpm of 3 × rpm concurrent requests spread over three replicas', async ({ redisUrl }) => {
    const replicas = [0, 1, 2].map(() => openLimiter({ url: redisUrl }));
    const rpm = 50;
    const results = await Promise.all(
      Array.from({ length: 3 * rpm }, (_, index) => (replicas[index % 3] as Limiter).admit(request({ tenantLimits: { rpm } }))),
    );
    expect(results.filter((result) => result.allowed)).toHaveLength(rpm);
    expect(results.every((result) => !result.degraded)).toBe(true);
  });

  redisTest('should never hold more slots than the concurrency limit across replicas', async ({ redisUrl }) => {
    const replicas = [0, 1, 2].map(() => openLimiter({ url: redisUrl }));
    const requests = Array.from({ length: 30 }, () => request({ keyLimits: { concurrency: 5 } }));
    const results = await Promise.all(requests.map((each, index) => (replicas[index % 3] as Limiter).admit(each)));
    const admitted = requests.filter((_, index) => results[index]?.allowed);
    expect(admitted).toHaveLength(5);
    // Released by another replica than the one that admitted it: slots are shared state.
    await (replicas[1] as Limiter).release(admitted[0] as AdmissionRequest);
    const retried = await Promise.all(requests.slice(0, 10).map((each) => (replicas[2] as Limiter).admit({ ...each, requestId: crypto.randomUUID() })));
    expect(retried.filter((result) => result.allowed)).toHaveLength(1);
  });

  redisTest('should admit again after waiting the retryAfterMs it was given, on the server clock', async ({ redisUrl }) => {
    const limiter = openLimiter({ url: redisUrl });
    // 300 tokens per minute: after a full burst, one more token frees every 200 ms.
    const limits = { tenantLimits: { tpm: 300 } };
    expect((await limiter.admit(request({ ...limits, estimatedTokens: 300 }))).allowed).toBe(true);
    const refused = await limiter.admit(request({ ...limits, estimatedTokens: 1 }));
    expect(refused).toMatchObject({ allowed: false, limit: 'tokens' });
    expect(refused.retryAfterMs).toBeGreaterThan(150);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(200);
    await sleep(refused.retryAfterMs);
    expect((await limiter.admit(request({ ...limits, estimatedTokens: 1 }))).allowed).toBe(true);
  });

  redisTest('should keep every key on the tenant hash tag and give each an expiry', async ({ redisUrl }) => {
    const limiter = openLimiter({ url: redisUrl });
    const limits: LimitSet = { rpm: 10, tpm: 1_000, concurrency: 2, dailyTokens: 10_000, monthlyTokens: 100_000 };
    await limiter.admit(request({ tenantId: 'acme', tenantLimits: limits, keyLimits: limits, estimatedTokens: 10 }));
    const redis = new Redis(redisUrl);
    onTestFinished(() => redis.disconnect());
    const keys = await redis.keys('*');
    expect(keys).toHaveLength(8);
    for (const key of keys) {
      expect(key.startsWith('sy:{t:acme}:')).toBe(true);
      expect(await redis.pttl(key)).toBeGreaterThan(0);
    }
  });

  redisTest('should answer exactly like the memory limiter for any history of admits, releases and reconciles', async ({ redisUrl }) => {
    let now = 0;
    const clock = () => now;
    const leaseMs = 20_000;
    const fromRedis = createRedisLimiterWithClock({ url: redisUrl, concurrencyLeaseMs: leaseMs }, clock);
    const fromMemory = createMemoryLimiter({ now: clock, concurrencyLeaseMs: leaseMs });
    onTestFinished(async () => {
      await fromRedis.close();
      await fromMemory.close();
    });

    const limitsArbitrary = fc.record(
      {
        rpm: fc.integer({ min: 1, max: 6 }),
        tpm: fc.integer({ min: 1, max: 1_000 }),
        concurrency: fc.integer({ min: 1, max: 3 }),
        dailyTokens: fc.integer({ min: 1, max: 1_500 }),
        monthlyTokens: fc.integer({ min: 1, max: 3_000 }),
      },
      { requiredKeys: [] },
    );
    const operationArbitrary = fc.record({
      // Round steps land exactly on lease expiries, drained buckets and day ends.
      advanceMs: fc.oneof(
        fc.constantFrom(0, 1, 1_000, 12_000, leaseMs, 60_000, HOUR_MS),
        fc.integer({ min: 0, max: 2_000 }),
        fc.integer({ min: 0, max: 40_000 }),
        fc.integer({ min: 0, max: 6 * HOUR_MS }),
      ),
      keyIndex: fc.integer({ min: 0, max: 1 }),
      requestIndex: fc.integer({ min: 0, max: 4 }),
      action: fc.oneof(
        fc.record({ kind: fc.constant('admit' as const), estimatedTokens: fc.integer({ min: 0, max: 400 }) }),
        fc.record({ kind: fc.constant('release' as const) }),
        fc.record({ kind: fc.constant('reconcile' as const), deltaTokens: fc.integer({ min: -400, max: 400 }) }),
      ),
    });
    // Starts on the last day of months (January, February of a leap year, December), where
    // budgets roll over within a run.
    const startArbitrary = fc
      .tuple(
        fc.constantFrom(Date.UTC(2026, 0, 31), Date.UTC(2026, 1, 28), Date.UTC(2028, 1, 29), Date.UTC(2026, 11, 31)),
        fc.oneof(fc.constantFrom(0, 24 * HOUR_MS - 60_000, 24 * HOUR_MS - 1), fc.integer({ min: 0, max: 24 * HOUR_MS - 1 })),
      )
      .map(([base, offset]) => base + offset);

    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        startArbitrary,
        limitsArbitrary,
        fc.tuple(limitsArbitrary, limitsArbitrary),
        fc.array(operationArbitrary, { minLength: 1, maxLength: 40 }),
        async (start, tenantLimits, keyLimits, operations) => {
          now = start;
          // A fresh tenant per run keeps runs independent without flushing.
          const tenantId = `tenant-${(run += 1)}`;
          for (const { advanceMs, keyIndex, requestIndex, action } of operations) {
            now += advanceMs;
            const scope = { tenantId, keyId: `key-${keyIndex}`, tenantLimits, keyLimits: keyLimits[keyIndex] as LimitSet };
            const requestId = `request-${requestIndex}`;
            if (action.kind === 'admit') {
              const admission = { ...scope, requestId, estimatedTokens: action.estimatedTokens };
              expect(await fromRedis.admit(admission)).toEqual(await fromMemory.admit(admission));
            } else if (action.kind === 'release') {
              await Promise.all([fromRedis.release({ ...scope, requestId }), fromMemory.release({ ...scope, requestId })]);
            } else {
              const reconcile = { ...scope, deltaTokens: action.deltaTokens };
              await Promise.all([fromRedis.reconcile(reconcile), fromMemory.reconcile(reconcile)]);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

// These start their own server: killing the file's shared one would disturb the other tests.
describe('redis limiter when Redis fails', () => {
  const TIMEOUT_MS = 250;
  /** Room for the event loop and a loaded CI machine on top of the configured bound. */
  const SLACK_MS = 250;

  async function ownRedis() {
    const server = await startRedis();
    onTestFinished(() => server.stop());
    return server;
  }

  async function timed<T>(work: Promise<T>): Promise<{ value: T; elapsedMs: number }> {
    const started = performance.now();
    const value = await work;
    return { value, elapsedMs: performance.now() - started };
  }

  it('should keep admitting from memory, flagged degraded, when Redis is killed, and recover when it is back', async () => {
    const server = await ownRedis();
    const transitions: boolean[] = [];
    const limiter = openLimiter({ url: server.url, timeoutMs: TIMEOUT_MS, onDegraded: (degraded) => transitions.push(degraded) });
    const limits = { tenantLimits: { rpm: 100 }, keyLimits: { rpm: 2 } };
    expect(await limiter.admit(request(limits))).toMatchObject({ allowed: true, degraded: false });

    await server.kill();
    const { value, elapsedMs } = await timed(limiter.admit(request(limits)));
    expect(elapsedMs).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(value).toMatchObject({ allowed: true, degraded: true });
    // The fallback still limits, per process: its own fresh window of 2 for the key.
    expect(await limiter.admit(request(limits))).toMatchObject({ allowed: true, degraded: true });
    expect(await limiter.admit(request(limits))).toMatchObject({ allowed: false, limit: 'requests', scope: 'key', degraded: true });
    expect(transitions).toEqual([true]);

    await server.restart();
    await vi.waitFor(async () => expect(await limiter.admit(request({ tenantLimits: { rpm: 100 } }))).toMatchObject({ degraded: false }), {
      timeout: 5_000,
      interval: 100,
    });
    expect(transitions).toEqual([true, false]);
  });

  it('should answer within the timeout when Redis stops answering', async () => {
    const server = await ownRedis();
    const limiter = openLimiter({ url: server.url, timeoutMs: TIMEOUT_MS });
    expect((await limiter.admit(request({ tenantLimits: { rpm: 10 } }))).degraded).toBe(false);
    const hang = await hangRedis(server.url, 1_000);
    const { value, elapsedMs } = await timed(limiter.admit(request({ tenantLimits: { rpm: 10 } })));
    expect(elapsedMs).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(value).toMatchObject({ allowed: true, degraded: true });
    // Later calls skip the stalled store instead of each waiting out the timeout.
    expect((await timed(limiter.admit(request({ tenantLimits: { rpm: 10 } })))).elapsedMs).toBeLessThan(SLACK_MS);
    await hang.resume();
  });

  it('should free slots released during an outage once Redis answers again', async () => {
    const server = await ownRedis();
    const limiter = openLimiter({ url: server.url, timeoutMs: TIMEOUT_MS });
    const holder = request({ tenantLimits: { concurrency: 1 } });
    expect((await limiter.admit(holder)).allowed).toBe(true);
    const hang = await hangRedis(server.url, 500);
    await limiter.release(holder);
    await hang.resume();
    await vi.waitFor(async () => expect(await limiter.admit(request({ tenantId: 'probe', tenantLimits: { rpm: 1_000 } }))).toMatchObject({ degraded: false }), {
      timeout: 5_000,
      interval: 100,
    });
    expect(await limiter.admit(request({ tenantLimits: { concurrency: 1 } }))).toMatchObject({ allowed: true, degraded: false });
  });

  it('should refuse while Redis is down when the rates policy is closed', async () => {
    const server = await ownRedis();
    const limiter = openLimiter({ url: server.url, timeoutMs: TIMEOUT_MS, onStoreFailure: { rates: 'closed', budgets: 'closed' } });
    await server.kill();
    expect(await limiter.admit(request({ keyLimits: { tpm: 1_000 } }))).toEqual({
      allowed: false,
      limit: 'tokens',
      scope: 'key',
      retryAfterMs: 1_000,
      degraded: true,
    });
  });

  it('should refuse requests with a budget while Redis is down unless budgets are open', async () => {
    const server = await ownRedis();
    const budgetsClosed = openLimiter({ url: server.url, timeoutMs: TIMEOUT_MS });
    const budgetsOpen = openLimiter({ url: server.url, timeoutMs: TIMEOUT_MS, onStoreFailure: { budgets: 'open' } });
    await server.kill();
    const withBudget = request({ tenantLimits: { rpm: 10, dailyTokens: 1_000 }, estimatedTokens: 5_000 });
    expect(await budgetsClosed.admit(withBudget)).toMatchObject({ allowed: false, limit: 'budget', scope: 'tenant', degraded: true });
    expect(await budgetsClosed.admit(request({ tenantLimits: { rpm: 10 } }))).toMatchObject({ allowed: true, degraded: true });
    expect(await budgetsOpen.admit(withBudget)).toMatchObject({ allowed: true, degraded: true });
  });

  it('should answer from the fallback within the timeout when Redis was never reachable', async () => {
    const transitions: boolean[] = [];
    const limiter = openLimiter({ url: `redis://127.0.0.1:${await getFreePort()}`, timeoutMs: TIMEOUT_MS, onDegraded: (degraded) => transitions.push(degraded) });
    const { value, elapsedMs } = await timed(limiter.admit(request({ tenantLimits: { rpm: 1 } })));
    expect(elapsedMs).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(value).toMatchObject({ allowed: true, degraded: true });
    await expect(limiter.release(request())).resolves.toBeUndefined();
    await expect(limiter.reconcile({ tenantId: 'acme', keyId: 'ci', tenantLimits: { tpm: 10 }, keyLimits: {}, deltaTokens: 5 })).resolves.toBeUndefined();
    expect(transitions).toEqual([true]);
  });
});
