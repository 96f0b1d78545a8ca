import { describe, expect, it, vi } from 'vitest';
import { createMemoryUsageAggregator } from './memory-usage-aggregator.ts';
import { createMemoryUsageSink } from './memory-usage-sink.ts';
import { TEST_YEAR, usageEvent } from './test-events.ts';
import type { UsageAggregator } from './usage-aggregator.ts';
import type { UsageEvent } from './usage-event.ts';

const Y = TEST_YEAR;

describe('memory usage sink', () => {
  it('should record after emit has returned, never during it', async () => {
    const aggregator = createMemoryUsageAggregator();
    const record = vi.spyOn(aggregator, 'record');
    const sink = createMemoryUsageSink(aggregator);
    sink.emit(usageEvent());
    expect(record).not.toHaveBeenCalled();
    await sink.close();
    expect(record).toHaveBeenCalledTimes(1);
  });

  it('should price events the way the worker does', async () => {
    const aggregator = createMemoryUsageAggregator();
    const sink = createMemoryUsageSink(aggregator, { prices: () => ({ inputPerMillion: 1_000_000, outputPerMillion: 2_000_000 }) });
    sink.emit(usageEvent({ inputTokens: 100, outputTokens: 10 }));
    sink.emit(usageEvent({ inputTokens: 100, outputTokens: 10, costMicros: 1 }));
    await sink.close();
    const [row] = await aggregator.query({ tenantId: 'acme', from: `${Y}-03-01`, to: `${Y}-03-31`, groupBy: 'month' });
    expect(row?.costMicros).toBe(120 + 1);
  });

  it('should report a failing aggregator and invalid events without throwing', async () => {
    const failing: UsageAggregator = {
      record: () => Promise.reject(new Error('store broke')),
      query: () => Promise.resolve([]),
      close: () => Promise.resolve(),
    };
    const onError = vi.fn();
    const onDrop = vi.fn();
    const sink = createMemoryUsageSink(failing, { onError, onDrop });
    sink.emit(usageEvent());
    sink.emit({ requestId: 'x' } as UsageEvent);
    await sink.close();
    sink.emit(usageEvent());
    expect(onDrop.mock.calls).toEqual([
      [1, 'invalid'],
      [1, 'closed'],
    ]);
    expect(onError.mock.calls.map(([error]) => (error as Error).message)).toContainEqual('store broke');
  });

});
