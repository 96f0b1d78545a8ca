import { createMemoryUsageAggregator, isUsageQueryError, type UsageQuery } from '@switchyard/usage-events';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { queryUsage } from './query-usage.ts';
import { at, TEST_YEAR, usageEvent } from './test-support.ts';

const Y = TEST_YEAR;

function aggregatorWith(events = [usageEvent({ occurredAt: at(`${Y}-03-14`) })]) {
  const aggregator = createMemoryUsageAggregator();
  onTestFinished(() => aggregator.close());
  return aggregator.record(events).then(() => aggregator);
}

describe('queryUsage', () => {
  it('should answer { data } for the query string of GET /admin/v1/usage', async () => {
    const aggregator = await aggregatorWith();
    const answer = await queryUsage(aggregator, { tenant: 'acme', from: `${Y}-03-01`, to: `${Y}-03-31`, groupBy: 'model' });
    expect(answer).toEqual({ data: [expect.objectContaining({ tenantId: 'acme', model: 'fast-chat', requests: 1 })] });
  });

  it('should default to the current UTC month so far, by day', async () => {
    const aggregator = await aggregatorWith();
    const query = vi.spyOn(aggregator, 'query');
    const answer = await queryUsage(aggregator, { tenant: 'acme' }, Date.parse(`${Y}-03-20T23:30:00Z`));
    expect(query).toHaveBeenCalledWith<[UsageQuery]>({ tenantId: 'acme', from: `${Y}-03-01`, to: `${Y}-03-20`, groupBy: 'day' });
    expect(answer.data.map((row) => row.day)).toEqual([`${Y}-03-14`]);
  });

  it('should answer only the tenant asked about', async () => {
    const aggregator = await aggregatorWith([usageEvent({ tenantId: 'acme' }), usageEvent({ tenantId: 'globex' }), usageEvent({ tenantId: 'globex' })]);
    const range = { from: `${Y}-03-01`, to: `${Y}-03-31`, groupBy: 'key' };
    expect((await queryUsage(aggregator, { tenant: 'globex', ...range })).data).toEqual([
      expect.objectContaining({ tenantId: 'globex', requests: 2 }),
    ]);
  });

  it.each([
    ['no tenant', {}],
    ['an unknown grouping', { tenant: 'acme', groupBy: 'hour' }],
    ['a malformed day', { tenant: 'acme', from: '14/03/2027' }],
    ['a reversed range', { tenant: 'acme', from: `${Y}-04-01`, to: `${Y}-03-01` }],
  ])('should refuse %s with a 400 UsageQueryError', async (_name, parameters) => {
    const aggregator = await aggregatorWith([]);
    const error = await queryUsage(aggregator, parameters).catch((caught: unknown) => caught);
    expect(isUsageQueryError(error)).toBe(true);
    expect(error).toMatchObject({ statusCode: 400, code: 'invalid_request' });
  });
});
