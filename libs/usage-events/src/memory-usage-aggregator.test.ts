import { describe, expect, it } from 'vitest';
import { createMemoryUsageAggregator } from './memory-usage-aggregator.ts';
import { TEST_YEAR, usageEvent } from './test-events.ts';

const DAY_MS = 86_400_000;
const Y = TEST_YEAR;

describe('memory usage aggregator', () => {
  it('should forget the oldest request ids beyond its bound', async () => {
    const aggregator = createMemoryUsageAggregator({ maxMarkers: 2 });
    const [first, second, third] = [usageEvent(), usageEvent(), usageEvent()] as const;
    for (const event of [first, second, third]) expect(await aggregator.record([event])).toEqual([true]);
    expect(await aggregator.record([third])).toEqual([false]);
    expect(await aggregator.record([first])).toEqual([true]);
    await aggregator.close();
  });

  it('should keep a request id counted again after its marker expired until its new marker is the oldest', async () => {
    let now = Date.UTC(Y, 2, 14);
    const aggregator = createMemoryUsageAggregator({ maxMarkers: 2, now: () => now });
    const [again, other, third] = [usageEvent(), usageEvent(), usageEvent()] as const;
    expect(await aggregator.record([again])).toEqual([true]);
    now += 9 * DAY_MS;
    expect(await aggregator.record([again])).toEqual([true]);
    // Pushes out the first marker of `again`, which must not take its second with it.
    expect(await aggregator.record([other])).toEqual([true]);
    expect(await aggregator.record([again])).toEqual([false]);
    expect(await aggregator.record([third])).toEqual([true]);
    expect(await aggregator.record([again])).toEqual([true]);
    await aggregator.close();
  });

  it('should forget request ids after the marker TTL and aggregates after their retention', async () => {
    let now = Date.UTC(Y, 2, 14, 13);
    const aggregator = createMemoryUsageAggregator({ now: () => now, retention: { days: 30, months: 1 } });
    const event = usageEvent({ occurredAt: Date.UTC(Y, 2, 14, 12) });
    await aggregator.record([event]);
    now += 8 * DAY_MS - 1;
    expect(await aggregator.record([event])).toEqual([false]);
    now += 1;
    expect(await aggregator.record([event])).toEqual([true]);
    const march = { tenantId: 'acme', from: `${Y}-03-14`, to: `${Y}-03-14` } as const;
    expect((await aggregator.query({ ...march, groupBy: 'day' }))[0]?.requests).toBe(2);
    // The day hash is gone 30 days after the 14th ended; the month hash is kept a month after March.
    now = Date.UTC(Y, 3, 14);
    expect(await aggregator.query({ ...march, groupBy: 'day' })).toEqual([]);
    expect((await aggregator.query({ ...march, from: `${Y}-03-01`, to: `${Y}-03-31`, groupBy: 'month' }))[0]?.requests).toBe(2);
    now = Date.UTC(Y, 4, 1);
    expect(await aggregator.query({ ...march, from: `${Y}-03-01`, to: `${Y}-03-31`, groupBy: 'month' })).toEqual([]);
    await aggregator.close();
  });
});
