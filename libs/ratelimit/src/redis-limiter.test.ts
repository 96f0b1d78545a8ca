import { getFreePort, redisTest, startRedis } from '@switchyard/testkit';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { bindRunBatch } from './commands.ts';
import { MAX_LIMIT } from './constants.ts';
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

  redisTest("should not take a reply that waited on this process's own busy event loop for a slow Redis", async ({ redisUrl }) => {
    const limiter = openLimiter({ url: redisUrl, timeoutMs: 50 });
    const limits = { tenantLimits: { rpm: 1 } };
    expect(await limiter.admit(request(limits))).toMatchObject({ allowed: true, degraded: false });
    // Then this process computes for longer than the bound (a cold start, a burst of requests
    // to parse). The command leaves batched at the end of this turn, after the stall, and Redis
    // answers it at once: Redis was not slow, and the shared window must decide.
    const pending = limiter.admit(request(limits));
    const busyUntil = performance.now() + 200;
    while (performance.now() < busyUntil) {
      // busy: no timer, no I/O runs meanwhile
    }
    expect(await pending).toMatchObject({ allowed: false, limit: 'requests', degraded: false });
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

  redisTest('should time admissions on the server clock and make a refusal wait for the reservation slot to leave', async ({ redisUrl }) => {
    const limiter = openLimiter({ url: redisUrl });
    const limits = { tenantLimits: { tpm: 300 } };
    // This process and the server read the same machine clock; a few ms cover the rounding.
    const before = Date.now();
    const admitted = await limiter.admit(request({ ...limits, estimatedTokens: 300 }));
    const admittedAt = admitted.admittedAt ?? Number.NaN;
    expect(admittedAt).toBeGreaterThanOrEqual(before - 5);
    expect(admittedAt).toBeLessThanOrEqual(Date.now() + 5);
    const refused = await limiter.admit(request({ ...limits, estimatedTokens: 1 }));
    const refusedBy = Date.now();
    expect(refused).toMatchObject({ allowed: false, limit: 'tokens' });
    // The wait ends exactly when the reservation's 1 s slot leaves, 61 s after the slot began.
    const leavesAt = (Math.floor(admittedAt / 1_000) + 61) * 1_000;
    expect(refused.retryAfterMs).toBeLessThanOrEqual(leavesAt - admittedAt);
    expect(refused.retryAfterMs).toBeGreaterThanOrEqual(leavesAt - refusedBy - 5);
    expect(refused.tokens).toEqual({ limit: 300, remaining: 0, resetMs: refused.retryAfterMs });
  });

  // As a Function the script's top level runs once, at load: a time read or a window kept by one
  // call must not reach the next.
  redisTest('should read the server clock anew in every call', async ({ redisUrl }) => {
    const limiter = openLimiter({ url: redisUrl });
    const first = await limiter.admit(request({ tenantLimits: { rpm: 10 } }));
    await sleep(30);
    const second = await limiter.admit(request({ tenantLimits: { rpm: 10 } }));
    expect((second.admittedAt ?? 0) - (first.admittedAt ?? 0)).toBeGreaterThanOrEqual(25);
  });

  redisTest('should write back and expire only the keys of the call itself', async ({ redisUrl }) => {
    const limiter = openLimiter({ url: redisUrl });
    const admin = new Redis(redisUrl);
    onTestFinished(() => admin.disconnect());
    const limits: LimitSet = { rpm: 10, tpm: 1_000, concurrency: 2 };
    const writesOfOneAdmission = async (tenantId: string): Promise<string> => {
      await admin.config('RESETSTAT');
      await limiter.admit(request({ tenantId, tenantLimits: limits, keyLimits: limits, estimatedTokens: 10 }));
      const stats = await admin.info('commandstats');
      return ['hset', 'pexpire'].map((command) => new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1]).join(' ');
    };
    const first = await writesOfOneAdmission('acme');
    expect(first).toMatch(/^\d+ \d+$/);
    expect(await writesOfOneAdmission('globex')).toBe(first);
    expect(await writesOfOneAdmission('initech')).toBe(first);
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

  redisTest('should refuse a batch with an unknown operation before running any of it', async ({ redisUrl }) => {
    const redis = new Redis(redisUrl);
    onTestFinished(() => redis.disconnect());
    const runBatch = bindRunBatch(redis);
    const keys = ['rpm', 'tpm', 'conc', 'budget', 'k:k:rpm', 'k:k:tpm', 'k:k:conc', 'k:k:budget'].map((name) => `sy:{t:acme}:${name}`);
    const admitArguments = ['', 'request-1', '10', '60000', '5', '1000', '2', '', '', '', '', '', '', ''];
    await expect(runBatch(keys.length, [...keys, 'ax', ...admitArguments])).rejects.toThrow(/unknown limiter operation in ax/);
    expect(await redis.keys('*')).toEqual([]);
  });

  redisTest('should refuse a repeat that has no operation of its kind before it', async ({ redisUrl }) => {
    const redis = new Redis(redisUrl);
    onTestFinished(() => redis.disconnect());
    const runBatch = bindRunBatch(redis);
    const keys = ['conc', 'k:k:conc'].map((name) => `sy:{t:acme}:${name}`);
    await expect(runBatch(keys.length, [...keys, 'Rr', 'request-1', 'request-1'])).rejects.toThrow(/unknown limiter operation in Rr/);
    await expect(runBatch(0, ['A', 'request-1', '10'])).rejects.toThrow(/unknown limiter operation in A/);
  });

  redisTest('should free every slot released in one turn, each under its own request id', async ({ redisUrl }) => {
    const limiter = openLimiter({ url: redisUrl });
    const holders = Array.from({ length: 3 }, () => request({ keyLimits: { concurrency: 3 } }));
    for (const holder of holders) expect((await limiter.admit(holder)).allowed).toBe(true);
    expect((await limiter.admit(request({ keyLimits: { concurrency: 3 } }))).allowed).toBe(false);
    // One batch: the first release whole, the two after it as its repeats.
    await Promise.all(holders.map((holder) => limiter.release(holder)));
    const again = await Promise.all(Array.from({ length: 3 }, () => limiter.admit(request({ keyLimits: { concurrency: 3 } }))));
    expect(again.map((result) => result.allowed)).toEqual([true, true, true]);
  });

  redisTest('should ignore what the GCRA buckets that used the same keys left behind', async ({ redisUrl }) => {
    const redis = new Redis(redisUrl);
    onTestFinished(() => redis.disconnect());
    await redis.hset('sy:{t:acme}:rpm', 'level', '60000', 'at', String(Date.now()));
    const limiter = openLimiter({ url: redisUrl });
    const results = [];
    for (let index = 0; index < 3; index += 1) results.push(await limiter.admit(request({ tenantLimits: { rpm: 2 } })));
    expect(results.map((result) => result.allowed)).toEqual([true, true, false]);
    expect(results[1]?.requests).toMatchObject({ limit: 2, remaining: 0 });
  });

  /** Both limiters on one fake clock: the Redis one receives it through the scripts' `now` argument. */
  function twins(redisUrl: string, leaseMs: number) {
    const clock = { now: 0 };
    const fromRedis = createRedisLimiterWithClock({ url: redisUrl, concurrencyLeaseMs: leaseMs }, () => clock.now);
    const fromMemory = createMemoryLimiter({ now: () => clock.now, concurrencyLeaseMs: leaseMs });
    onTestFinished(async () => {
      await fromRedis.close();
      await fromMemory.close();
    });
    let run = 0;
    /**
     * Plays one history on both and requires identical answers. A fresh tenant per run keeps
     * runs independent without flushing. Reconciles carry the admittedAt of the request's last
     * admission when asked to, as the router does.
     */
    const play = async (start: number, tenantLimits: LimitSet, keyLimits: [LimitSet, LimitSet], operations: readonly Operation[]) => {
      clock.now = start;
      const tenantId = `tenant-${(run += 1)}`;
      const admittedAt = new Map<number, number>();
      for (const { advanceMs, keyIndex, requestIndex, action } of operations) {
        clock.now += advanceMs;
        const scope = { tenantId, keyId: `key-${keyIndex}`, tenantLimits, keyLimits: keyLimits[keyIndex] as LimitSet };
        const requestId = `request-${requestIndex}`;
        if (action.kind === 'admit') {
          const admission = { ...scope, requestId, estimatedTokens: action.estimatedTokens };
          const expected = await fromMemory.admit(admission);
          expect(await fromRedis.admit(admission)).toEqual(expected);
          if (expected.admittedAt !== undefined) admittedAt.set(requestIndex, expected.admittedAt);
        } else if (action.kind === 'release') {
          await Promise.all([fromRedis.release({ ...scope, requestId }), fromMemory.release({ ...scope, requestId })]);
        } else {
          const at = action.withAdmittedAt ? admittedAt.get(requestIndex) : undefined;
          const reconcile = { ...scope, deltaTokens: action.deltaTokens, ...(at !== undefined && { admittedAt: at }) };
          await Promise.all([fromRedis.reconcile(reconcile), fromMemory.reconcile(reconcile)]);
        }
      }
    };
    /**
     * The same history, with the Redis limiter given the operations in two turns, each before
     * any answer, as a busy process gives them, across two tenants; the memory limiter takes them
     * one after another. The fake clock is read when an operation is issued, so each still
     * happens at its own moment.
     */
    const playTogether = async (start: number, tenantLimits: LimitSet, keyLimits: [LimitSet, LimitSet], operations: readonly Operation[]) => {
      await fromRedis.ready();
      clock.now = start;
      const tenantIds = [`tenant-${(run += 1)}`, `tenant-${(run += 1)}`];
      const admittedAt = new Map<string, number>();
      const expected: unknown[] = [];
      const issue: Array<() => Promise<unknown>> = [];
      for (const { advanceMs, keyIndex, requestIndex, action } of operations) {
        clock.now += advanceMs;
        const now = clock.now;
        const tenantId = tenantIds[requestIndex % 2] as string;
        const scope = { tenantId, keyId: `key-${keyIndex}`, tenantLimits, keyLimits: keyLimits[keyIndex] as LimitSet };
        const requestId = `request-${requestIndex}`;
        const at = (call: () => Promise<unknown>) => () => ((clock.now = now), call());
        if (action.kind === 'admit') {
          const admission = { ...scope, requestId, estimatedTokens: action.estimatedTokens };
          const result = await fromMemory.admit(admission);
          expected.push(result);
          if (result.admittedAt !== undefined) admittedAt.set(`${tenantId}/${requestId}`, result.admittedAt);
          issue.push(at(() => fromRedis.admit(admission)));
        } else if (action.kind === 'release') {
          expected.push(await fromMemory.release({ ...scope, requestId }));
          issue.push(at(() => fromRedis.release({ ...scope, requestId })));
        } else {
          const admitted = action.withAdmittedAt ? admittedAt.get(`${tenantId}/${requestId}`) : undefined;
          const reconcile = { ...scope, deltaTokens: action.deltaTokens, ...(admitted !== undefined && { admittedAt: admitted }) };
          expected.push(await fromMemory.reconcile(reconcile));
          issue.push(at(() => fromRedis.reconcile(reconcile)));
        }
      }
      // Two turns, so that the second batch reads what the first one wrote back.
      const half = Math.ceil(issue.length / 2);
      const first = await Promise.all(issue.slice(0, half).map((call) => call()));
      const second = await Promise.all(issue.slice(half).map((call) => call()));
      expect([...first, ...second]).toEqual(expected);
    };
    return { play, playTogether };
  }

  type Operation = {
    advanceMs: number;
    keyIndex: number;
    requestIndex: number;
    action: { kind: 'admit'; estimatedTokens: number } | { kind: 'release' } | { kind: 'reconcile'; deltaTokens: number; withAdmittedAt: boolean };
  };

  function operationArbitrary(options: {
    advanceMs: fc.Arbitrary<number>;
    estimatedTokens: fc.Arbitrary<number>;
    deltaTokens: fc.Arbitrary<number>;
    releases: boolean;
  }): fc.Arbitrary<Operation> {
    const admit = fc.record({ kind: fc.constant('admit' as const), estimatedTokens: options.estimatedTokens });
    const reconcile = fc.record({
      kind: fc.constant('reconcile' as const),
      deltaTokens: options.deltaTokens,
      withAdmittedAt: fc.oneof(fc.constant(true), fc.boolean()),
    });
    const release = fc.record({ kind: fc.constant('release' as const) });
    return fc.record({
      advanceMs: options.advanceMs,
      keyIndex: fc.integer({ min: 0, max: 1 }),
      requestIndex: fc.integer({ min: 0, max: 4 }),
      action: options.releases
        ? fc.oneof(admit, release, reconcile)
        : fc.oneof({ arbitrary: admit, weight: 3 }, { arbitrary: reconcile, weight: 1 }),
    });
  }

  redisTest('should answer exactly like the memory limiter for any history of admits, releases and reconciles', async ({ redisUrl }) => {
    const leaseMs = 20_000;
    const { play } = twins(redisUrl, leaseMs);
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
    const operations = operationArbitrary({
      // Round steps land exactly on slot and window edges, lease expiries and day ends.
      advanceMs: fc.oneof(
        fc.constantFrom(0, 1, 999, 1_000, 12_000, leaseMs, 60_000, 61_000, HOUR_MS),
        fc.integer({ min: 0, max: 2_000 }),
        fc.integer({ min: 0, max: 40_000 }),
        fc.integer({ min: 0, max: 6 * HOUR_MS }),
      ),
      estimatedTokens: fc.integer({ min: 0, max: 400 }),
      deltaTokens: fc.integer({ min: -400, max: 400 }),
      releases: true,
    });
    // Starts on the last day of months (January, February of a leap year, December), where
    // budgets roll over within a run.
    const startArbitrary = fc
      .tuple(
        fc.constantFrom(Date.UTC(2026, 0, 31), Date.UTC(2026, 1, 28), Date.UTC(2028, 1, 29), Date.UTC(2026, 11, 31)),
        fc.oneof(fc.constantFrom(0, 24 * HOUR_MS - 60_000, 24 * HOUR_MS - 1), fc.integer({ min: 0, max: 24 * HOUR_MS - 1 })),
      )
      .map(([base, offset]) => base + offset);
    await fc.assert(
      fc.asyncProperty(
        startArbitrary,
        limitsArbitrary,
        fc.tuple(limitsArbitrary, limitsArbitrary),
        fc.array(operations, { minLength: 1, maxLength: 40, size: 'max' }),
        play,
      ),
      { numRuns: 200 },
    );
  });

  redisTest('should answer operations issued many to a turn, of several tenants, exactly as one after another', async ({ redisUrl }) => {
    const { playTogether } = twins(redisUrl, 20_000);
    const limitsArbitrary = fc.record(
      { rpm: fc.integer({ min: 1, max: 4 }), tpm: fc.integer({ min: 1, max: 800 }), concurrency: fc.integer({ min: 1, max: 2 }), dailyTokens: fc.integer({ min: 1, max: 1_500 }) },
      { requiredKeys: [] },
    );
    const operations = operationArbitrary({
      advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 30_000 })),
      estimatedTokens: fc.integer({ min: 0, max: 300 }),
      deltaTokens: fc.integer({ min: -300, max: 300 }),
      releases: true,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }),
        limitsArbitrary,
        fc.tuple(limitsArbitrary, limitsArbitrary),
        fc.array(operations, { minLength: 1, maxLength: 30, size: 'max' }),
        playTogether,
      ),
      { numRuns: 300 },
    );
  });

  redisTest("should send a turn's operations as one script call per tenant", async ({ redisUrl }) => {
    const limiter = openLimiter({ url: redisUrl });
    const admin = new Redis(redisUrl);
    onTestFinished(() => admin.quit().then(() => undefined));
    // Loads the script, so that what is counted below are the batches alone.
    await limiter.admit(request({ tenantId: 'warm-up', tenantLimits: { rpm: 100 } }));
    await admin.config('RESETSTAT');
    const limits = { tenantLimits: { rpm: 4, concurrency: 10 } };
    const results = await Promise.all([
      ...Array.from({ length: 6 }, () => limiter.admit(request({ tenantId: 'acme', ...limits }))),
      ...Array.from({ length: 3 }, () => limiter.admit(request({ tenantId: 'globex', ...limits }))),
      limiter.release(request({ tenantId: 'acme' })),
      limiter.reconcile({ tenantId: 'globex', keyId: 'ci', tenantLimits: { tpm: 100 }, keyLimits: {}, deltaTokens: 5 }),
    ]);
    // In the order issued: the first four of acme's six, all three of globex's.
    expect(results.slice(0, 9).map((result) => (result as { allowed: boolean }).allowed)).toEqual([true, true, true, true, false, false, true, true, true]);
    const stats = await admin.info('commandstats');
    expect(/cmdstat_fcall:calls=(\d+)/.exec(stats)?.[1]).toBe('2');
    expect(stats).not.toMatch(/cmdstat_eval/);
  });

  redisTest('should count, wait and give back in the rate windows exactly like the memory limiter', async ({ redisUrl }) => {
    // Rate windows alone, busy: many admits over a few minutes, so that pruning, refusals and
    // their waits, and reconciles of both signs (to slots still counted or gone) all happen.
    const { play } = twins(redisUrl, 20_000);
    const rateArbitrary = fc.record(
      {
        rpm: fc.integer({ min: 1, max: 12 }),
        // Now and then the largest limits, where doubles could round if anything were inexact.
        tpm: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 1_500 }), weight: 4 }, { arbitrary: fc.integer({ min: 1, max: MAX_LIMIT }), weight: 1 }),
      },
      { requiredKeys: [] },
    );
    const operations = operationArbitrary({
      advanceMs: fc.oneof(
        { arbitrary: fc.constantFrom(0, 1, 999, 1_000, 59_999, 60_000, 61_000), weight: 1 },
        { arbitrary: fc.integer({ min: 0, max: 3_000 }), weight: 4 },
        { arbitrary: fc.integer({ min: 0, max: 30_000 }), weight: 1 },
      ),
      estimatedTokens: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 400 }), weight: 6 }, { arbitrary: fc.integer({ min: 0, max: MAX_LIMIT + 1 }), weight: 1 }),
      deltaTokens: fc.oneof({ arbitrary: fc.integer({ min: -400, max: 400 }), weight: 6 }, { arbitrary: fc.integer({ min: -MAX_LIMIT, max: MAX_LIMIT }), weight: 1 }),
      releases: false,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 10_000 }).map((offset) => Date.UTC(2026, 6, 1) + offset),
        rateArbitrary,
        fc.tuple(rateArbitrary, rateArbitrary),
        fc.array(operations, { minLength: 1, maxLength: 120, size: 'max' }),
        play,
      ),
      { numRuns: 200 },
    );
    // About 3 s here; room for a loaded 2-core machine.
  }, 60_000);
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
    // Reserved in this process's memory only: no reconcile may give it back to a Redis window.
    expect(value.admittedAt).toBeUndefined();
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

  it('should become ready only once a Redis that starts late has answered, then admit from it', async () => {
    const server = await ownRedis();
    await server.kill();
    const limiter = openLimiter({ url: server.url, timeoutMs: TIMEOUT_MS, startupWaitMs: 10_000 });
    let ready = false;
    const becameReady = limiter.ready().then(() => (ready = true));
    await sleep(600);
    expect(ready).toBe(false);
    await server.restart();
    await becameReady;
    expect(await limiter.admit(request({ tenantLimits: { rpm: 5 } }))).toMatchObject({ allowed: true, degraded: false });
  });

  it('should become ready after startupWaitMs when Redis never answers, so a Redis outage cannot stall a rollout', async () => {
    const limiter = openLimiter({ url: `redis://127.0.0.1:${await getFreePort()}`, timeoutMs: TIMEOUT_MS, startupWaitMs: 400 });
    const { elapsedMs } = await timed(limiter.ready());
    expect(elapsedMs).toBeGreaterThanOrEqual(350);
    expect(elapsedMs).toBeLessThan(400 + SLACK_MS + 500);
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
