import { redisTest } from '@switchyard/testkit';
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { aggregateKey, requestMarkerKey } from './keys.ts';
import { MIN_MARKER_TTL_MS, resolveRetention } from './record-plan.ts';
import { createRedisUsageAggregator, type RedisUsageAggregatorOptions } from './redis-usage-aggregator.ts';
import { at, TEST_YEAR, usageEvent } from './test-events.ts';
import type { UsageAggregator } from './usage-aggregator.ts';

const DAY_MS = 86_400_000;
const Y = TEST_YEAR;

function open(options: RedisUsageAggregatorOptions): UsageAggregator {
  const aggregator = createRedisUsageAggregator(options);
  onTestFinished(() => aggregator.close());
  return aggregator;
}

function client(url: string): Redis {
  const redis = new Redis(url);
  onTestFinished(() => {
    redis.disconnect();
  });
  return redis;
}

describe('redis usage aggregator', () => {
  redisTest('should write the documented keys, all in the tenant slot', async ({ redisUrl }) => {
    const aggregator = open({ url: redisUrl });
    await aggregator.record([usageEvent({ requestId: 'r-1', keyId: 'ci', model: 'fast', occurredAt: at(`${Y}-03-14`), inputTokens: 7, outputTokens: 0 })]);
    const redis = client(redisUrl);
    expect((await redis.keys('*')).sort()).toEqual(
      [`sy:{t:acme}:usage:day:${Y}-03-14`, `sy:{t:acme}:usage:month:${Y}-03`, 'sy:{t:acme}:usage:req:r-1'].sort(),
    );
    // Metrics that stayed 0 take no field.
    expect(await redis.hgetall(aggregateKey('acme', 'day', `${Y}-03-14`))).toEqual({ 'ci:fast:requests': '1', 'ci:fast:input': '7' });
  });

  redisTest("should record a batch as one script call per tenant, each event counted once", async ({ redisUrl }) => {
    const aggregator = open({ url: redisUrl });
    const redis = client(redisUrl);
    // Loads the script, so that what is counted below are the batches alone.
    await aggregator.record([usageEvent({ tenantId: 'warm-up' })]);
    await redis.config('RESETSTAT');
    const repeated = usageEvent({ inputTokens: 3 });
    const events = [repeated, usageEvent({ tenantId: 'globex' }), usageEvent({ inputTokens: 5, outputTokens: 0 }), structuredClone(repeated)];
    expect(await aggregator.record(events)).toEqual([true, true, true, false]);
    expect(/cmdstat_fcall:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1]).toBe('2');
    const rows = await aggregator.query({ tenantId: 'acme', from: `${Y}-01-01`, to: `${Y}-12-31`, groupBy: 'month' });
    expect(rows).toMatchObject([{ requests: 2, inputTokens: 8 }]);
  });

  redisTest('should split a large batch into calls of at most 500 events, answered in its order', async ({ redisUrl }) => {
    const aggregator = open({ url: redisUrl });
    const redis = client(redisUrl);
    await aggregator.record([usageEvent({ tenantId: 'warm-up' })]);
    await redis.config('RESETSTAT');
    const events = Array.from({ length: 1_000 }, (_, index) => usageEvent({ requestId: `r-${index}`, inputTokens: 1, outputTokens: 0 }));
    // A repeat in the last call of one counted in the first.
    const outcomes = await aggregator.record([...events, usageEvent({ requestId: 'r-1' })]);
    expect(outcomes.slice(0, 1_000).every(Boolean)).toBe(true);
    expect(outcomes.slice(1_000)).toEqual([false]);
    expect(/cmdstat_fcall:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1]).toBe('3');
    const rows = await aggregator.query({ tenantId: 'acme', from: `${Y}-01-01`, to: `${Y}-12-31`, groupBy: 'month' });
    expect(rows).toMatchObject([{ requests: 1_000, inputTokens: 1_000 }]);
  });

  redisTest('should remember a counted request for the marker TTL, at least a week', async ({ redisUrl }) => {
    const aggregator = open({ url: redisUrl });
    await aggregator.record([usageEvent({ requestId: 'r-ttl' })]);
    const ttl = await client(redisUrl).pttl(requestMarkerKey('acme', 'r-ttl'));
    expect(ttl).toBeGreaterThan(MIN_MARKER_TTL_MS);
    expect(ttl).toBeLessThanOrEqual(8 * DAY_MS);
  });

  redisTest('should expire aggregates their retention after their period ends', async ({ redisUrl }) => {
    const aggregator = open({ url: redisUrl, retention: { days: 30, months: 12 } });
    await aggregator.record([usageEvent({ occurredAt: at(`${Y}-03-14`) })]);
    const redis = client(redisUrl);
    expect(await redis.pexpiretime(aggregateKey('acme', 'day', `${Y}-03-14`))).toBe(Date.UTC(Y, 2, 15) + 30 * DAY_MS);
    expect(await redis.pexpiretime(aggregateKey('acme', 'month', `${Y}-03`))).toBe(Date.UTC(Y + 1, 3, 1));
  });

  it('should refuse a marker TTL under a week', () => {
    expect(() => resolveRetention({ markerTtlMs: DAY_MS })).toThrow(/at least 7 days/);
    expect(() => resolveRetention({ days: 0 })).toThrow(/days/);
  });

  redisTest('should count once when a call timed out after all and is retried', async ({ redisUrl }) => {
    const aggregator = open({ url: redisUrl, commandTimeoutMs: 100 });
    const event = usageEvent({ inputTokens: 3 });
    // Loads the script first, so that what the pause holds is the call itself.
    await aggregator.record([usageEvent({ tenantId: 'warm-up' })]);
    // The server holds the script past the caller's timeout, then runs it anyway.
    await client(redisUrl).client('PAUSE', 400);
    await expect(aggregator.record([event])).rejects.toThrow(/timed? ?out/i);
    await sleep(500);
    expect(await aggregator.record([event])).toEqual([false]);
    const rows = await aggregator.query({ tenantId: 'acme', from: `${Y}-03-01`, to: `${Y}-03-31`, groupBy: 'day' });
    expect(rows.map((row) => [row.requests, row.inputTokens])).toEqual([[1, 3]]);
  });

  redisTest('should record after Redis lost its scripts', async ({ redisUrl }) => {
    const aggregator = open({ url: redisUrl });
    expect(await aggregator.record([usageEvent()])).toEqual([true]);
    await client(redisUrl).script('FLUSH');
    expect(await aggregator.record([usageEvent()])).toEqual([true]);
  });
});
