import { redisTest } from '@switchyard/testkit';
import { describe, expect, onTestFinished } from 'vitest';
import { createMemoryUsageAggregator } from './memory-usage-aggregator.ts';
import { createRedisUsageAggregator } from './redis-usage-aggregator.ts';
import { at, TEST_YEAR, usageEvent } from './test-events.ts';
import type { UsageAggregator, UsageQuery, UsageRow } from './usage-aggregator.ts';
import { isUsageQueryError } from './usage-query-error.ts';
import { emptyTotals, totalsOf, type UsageTotals } from './usage-totals.ts';

// The behaviour both aggregators promise, run against each with the same test bodies.

const implementations: { name: string; create: (redisUrl: string) => UsageAggregator }[] = [
  { name: 'memory aggregator', create: () => createMemoryUsageAggregator() },
  { name: 'redis aggregator', create: (redisUrl) => createRedisUsageAggregator({ url: redisUrl }) },
];

const Y = TEST_YEAR;

function query(overrides: Partial<UsageQuery> = {}): UsageQuery {
  return { tenantId: 'acme', from: `${Y}-01-01`, to: `${Y}-12-31`, groupBy: 'month', ...overrides };
}

function totals(rows: UsageRow[]): UsageTotals {
  const sum = emptyTotals();
  for (const row of rows) for (const metric of Object.keys(sum) as (keyof UsageTotals)[]) sum[metric] += row[metric];
  return sum;
}

describe.each(implementations)('$name', ({ create }) => {
  function open(redisUrl: string): UsageAggregator {
    const aggregator = create(redisUrl);
    onTestFinished(() => aggregator.close());
    return aggregator;
  }

  redisTest('should count a request once however often it is recorded', async ({ redisUrl }) => {
    const aggregator = open(redisUrl);
    const event = usageEvent();
    expect(await aggregator.record([event])).toEqual([true]);
    expect(await aggregator.record([event])).toEqual([false]);
    expect(await aggregator.record([{ ...event, inputTokens: 999 }])).toEqual([false]);
    const rows = await aggregator.query(query());
    expect(rows).toEqual([{ tenantId: 'acme', month: `${Y}-03`, ...totalsOf(event) }]);
  });

  redisTest('should count a request once when its deliveries race', async ({ redisUrl }) => {
    const aggregator = open(redisUrl);
    const event = usageEvent();
    const results = await Promise.all(Array.from({ length: 20 }, async () => (await aggregator.record([event]))[0]));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await aggregator.query(query()))[0]?.requests).toBe(1);
  });

  redisTest('should count every metric', async ({ redisUrl }) => {
    const aggregator = open(redisUrl);
    await aggregator.record([usageEvent({ inputTokens: 1_000, outputTokens: 300, cachedTokens: 400, reasoningTokens: 120, costMicros: 5_000, stream: true })]);
    await aggregator.record([usageEvent({ inputTokens: 10, outputTokens: 0, status: 429 })]);
    await aggregator.record([usageEvent({ inputTokens: 0, outputTokens: 0, status: 502, stream: true })]);
    expect(await aggregator.query(query())).toEqual([
      {
        tenantId: 'acme',
        month: `${Y}-03`,
        requests: 3,
        errors: 2,
        streamRequests: 2,
        inputTokens: 1_010,
        outputTokens: 300,
        cachedTokens: 400,
        reasoningTokens: 120,
        costMicros: 5_000,
      },
    ]);
  });

  // Recorded as one batch, the events go to Redis as one script call, whose sums are written per field.
  redisTest.for(['one at a time', 'as one batch'])('should group by day, month, model and key, recorded %s', async (arrival, { redisUrl }) => {
    const aggregator = open(redisUrl);
    const events = [
      usageEvent({ occurredAt: at(`${Y}-03-31`, 23), keyId: 'ci', model: 'fast', inputTokens: 1 }),
      usageEvent({ occurredAt: at(`${Y}-04-01`, 0), keyId: 'ci', model: 'smart', inputTokens: 2 }),
      usageEvent({ occurredAt: at(`${Y}-04-01`, 9), keyId: 'web', model: 'fast', inputTokens: 4 }),
      usageEvent({ occurredAt: at(`${Y}-04-20`), keyId: 'web', model: 'fast', inputTokens: 8 }),
    ];
    if (arrival === 'one at a time') for (const event of events) await aggregator.record([event]);
    else expect(await aggregator.record(events)).toEqual([true, true, true, true]);
    const input = async (groupBy: UsageQuery['groupBy']) =>
      (await aggregator.query(query({ groupBy }))).map(({ day, month, model, keyId, inputTokens }) => [day ?? month ?? model ?? keyId, inputTokens]);
    expect(await input('day')).toEqual([
      [`${Y}-03-31`, 1],
      [`${Y}-04-01`, 6],
      [`${Y}-04-20`, 8],
    ]);
    expect(await input('month')).toEqual([
      [`${Y}-03`, 1],
      [`${Y}-04`, 14],
    ]);
    expect(await input('model')).toEqual([
      ['fast', 13],
      ['smart', 2],
    ]);
    expect(await input('key')).toEqual([
      ['ci', 3],
      ['web', 12],
    ]);
    const byDay = await aggregator.query(query({ groupBy: 'day' }));
    expect(byDay.every((row) => row.month === undefined && row.model === undefined && row.keyId === undefined)).toBe(true);
  });

  redisTest('should count only the days inside the range, also in month rows', async ({ redisUrl }) => {
    const aggregator = open(redisUrl);
    for (const day of ['03-31', '04-01', '04-15', '04-30', '05-01', '06-10']) {
      await aggregator.record([usageEvent({ occurredAt: at(`${Y}-${day}`), inputTokens: 1 })]);
    }
    const range = { from: `${Y}-04-01`, to: `${Y}-05-31` };
    expect((await aggregator.query(query({ ...range, groupBy: 'month' }))).map((row) => [row.month, row.requests])).toEqual([
      [`${Y}-04`, 3],
      [`${Y}-05`, 1],
    ]);
    const partial = { from: `${Y}-04-10`, to: `${Y}-05-01` };
    expect((await aggregator.query(query({ ...partial, groupBy: 'month' }))).map((row) => [row.month, row.requests])).toEqual([
      [`${Y}-04`, 2],
      [`${Y}-05`, 1],
    ]);
    expect(totals(await aggregator.query(query({ ...partial, groupBy: 'model' }))).requests).toBe(3);
    expect(totals(await aggregator.query(query({ from: `${Y}-04-01`, to: `${Y}-04-01`, groupBy: 'key' }))).requests).toBe(1);
  });

  redisTest('should count a batch of several days, keys and models', async ({ redisUrl }) => {
    const aggregator = open(redisUrl);
    const repeated = usageEvent({ occurredAt: at(`${Y}-03-31`), keyId: 'ci', inputTokens: 1, outputTokens: 0 });
    // Interleaved, so that groups recur after others: the Redis aggregator sends each group once.
    const events = [
      repeated,
      usageEvent({ occurredAt: at(`${Y}-04-01`), keyId: 'ci', inputTokens: 2, outputTokens: 0 }),
      usageEvent({ occurredAt: at(`${Y}-03-31`), keyId: 'web', inputTokens: 4, outputTokens: 0, stream: true }),
      usageEvent({ occurredAt: at(`${Y}-03-31`), keyId: 'ci', model: 'slow-chat', inputTokens: 8, outputTokens: 0, status: 500 }),
      usageEvent({ occurredAt: at(`${Y}-03-31`), keyId: 'ci', inputTokens: 16, outputTokens: 3, costMicros: 7 }),
      { ...repeated, inputTokens: 999 },
      usageEvent({ occurredAt: at(`${Y}-04-01`), keyId: 'ci', inputTokens: 32, outputTokens: 0 }),
    ];
    expect(await aggregator.record(events)).toEqual([true, true, true, true, true, false, true]);
    const rows = (await aggregator.query(query({ groupBy: 'day' }))).map((row) => [row.day, row.requests, row.inputTokens, row.outputTokens]);
    expect(rows).toEqual([
      [`${Y}-03-31`, 4, 29, 3],
      [`${Y}-04-01`, 2, 34, 0],
    ]);
    const byKey = (await aggregator.query(query({ groupBy: 'key' }))).map((row) => [row.keyId, row.requests, row.streamRequests, row.inputTokens]);
    expect(byKey).toEqual([
      ['ci', 5, 0, 59],
      ['web', 1, 1, 4],
    ]);
    const byModel = (await aggregator.query(query({ groupBy: 'model' }))).map((row) => [row.model, row.requests, row.errors, row.costMicros]);
    expect(byModel).toEqual([
      ['fast-chat', 5, 0, 7],
      ['slow-chat', 1, 1, 0],
    ]);
  });

  redisTest('should keep tenants apart', async ({ redisUrl }) => {
    const aggregator = open(redisUrl);
    await aggregator.record([usageEvent({ tenantId: 'acme', keyId: 'shared-name', inputTokens: 5 })]);
    await aggregator.record([usageEvent({ tenantId: 'globex', keyId: 'shared-name', inputTokens: 7 })]);
    // The same request id under another tenant is another tenant's request.
    const event = usageEvent({ tenantId: 'acme', inputTokens: 11 });
    await aggregator.record([event]);
    await aggregator.record([{ ...event, tenantId: 'globex' }]);
    for (const groupBy of ['day', 'month', 'model', 'key'] as const) {
      const acme = await aggregator.query(query({ groupBy }));
      const globex = await aggregator.query(query({ tenantId: 'globex', groupBy }));
      expect(acme.every((row) => row.tenantId === 'acme')).toBe(true);
      expect(globex.every((row) => row.tenantId === 'globex')).toBe(true);
      expect(totals(acme).inputTokens).toBe(16);
      expect(totals(globex).inputTokens).toBe(18);
    }
    expect(await aggregator.query(query({ tenantId: 'initech' }))).toEqual([]);
  });

  redisTest('should keep ids with separators apart', async ({ redisUrl }) => {
    const aggregator = open(redisUrl);
    await aggregator.record([usageEvent({ keyId: 'a:b', model: 'c' })]);
    await aggregator.record([usageEvent({ keyId: 'a', model: 'b:c' })]);
    expect((await aggregator.query(query({ groupBy: 'key' }))).map((row) => row.keyId)).toEqual(['a', 'a:b']);
    expect((await aggregator.query(query({ groupBy: 'model' }))).map((row) => row.model)).toEqual(['b:c', 'c']);
  });

  redisTest.for<[string, Partial<UsageQuery>]>([
    ['a day that does not exist', { from: `${Y}-02-30` }],
    ['a malformed day', { to: 'tomorrow' }],
    ['a reversed range', { from: `${Y}-05-01`, to: `${Y}-04-01` }],
    ['a daily range over a year', { groupBy: 'day' as const, from: `${Y}-01-01`, to: `${Y + 1}-01-02` }],
    ['a range over five years', { from: `${Y}-01-01`, to: `${Y + 6}-01-01` }],
    ['an unknown grouping', { groupBy: 'hour' as UsageQuery['groupBy'] }],
    ['an empty tenant', { tenantId: '' }],
  ])('should refuse %s with a UsageQueryError', async ([, overrides], { redisUrl }) => {
    const aggregator = open(redisUrl);
    const error = await aggregator.query(query(overrides)).catch((caught: unknown) => caught);
    expect(isUsageQueryError(error)).toBe(true);
    expect(error).toMatchObject({ statusCode: 400 });
  });
});
