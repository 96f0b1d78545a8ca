import { priceUsageEvent, type PriceLookup } from './prices.ts';
import type { UsageAggregator } from './usage-aggregator.ts';
import type { UsageEvent } from './usage-event.ts';
import type { UsageSink, UsageSinkCallbacks } from './usage-sink.ts';
import { callSafely } from './call-safely.ts';
import { parseUsageEvent } from './is-usage-event.ts';

export interface MemoryUsageSinkOptions extends UsageSinkCallbacks {
  /** Prices events without a cost, as the worker would. Without it they cost what they carry. */
  prices?: PriceLookup;
}

const SETTLED = Promise.resolve();

/**
 * The sink of `all` without Redis: events go straight to an aggregator in this process, after
 * the same validation and pricing as through the queue and the worker. Recording is deferred
 * past the emit call, so the hot path never waits on it: the events of one event-loop turn are
 * recorded together, after it, by one callback rather than a promise chain per event.
 */
export function createMemoryUsageSink(aggregator: UsageAggregator, options: MemoryUsageSinkOptions = {}): UsageSink {
  let batch: UsageEvent[] = [];
  let draining: Promise<void> | undefined;
  let closed = false;

  async function drain(): Promise<void> {
    // Yield first: emit has returned and the answer is on its way before anything is recorded.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (batch.length > 0) {
      const events = batch;
      batch = [];
      try {
        const { prices } = options;
        await aggregator.record(prices === undefined ? events : events.map((event) => priceUsageEvent(event, prices)));
      } catch (error) {
        callSafely(() => options.onError?.(error));
      }
    }
    draining = undefined;
  }

  function record(event: UsageEvent): void {
    batch.push(event);
    draining ??= drain();
  }

  return {
    // Nothing here outlives the process, so nothing is worth waiting for: settled at once.
    emit(event: UsageEvent): Promise<void> {
      try {
        if (closed) {
          callSafely(() => options.onDrop?.(1, 'closed'));
          return SETTLED;
        }
        const parsed = parseUsageEvent(event);
        if (!parsed.success) {
          callSafely(() => options.onDrop?.(1, 'invalid'));
          callSafely(() => options.onError?.(parsed.error));
          return SETTLED;
        }
        record(parsed.data);
      } catch (error) {
        // Nothing an event carries may fail the request that emitted it.
        callSafely(() => options.onError?.(error));
      }
      return SETTLED;
    },

    async close(): Promise<void> {
      closed = true;
      await draining;
    },
  };
}
