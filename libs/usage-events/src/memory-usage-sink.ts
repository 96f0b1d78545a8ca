import { priceUsageEvent, type PriceLookup } from './prices.ts';
import type { UsageAggregator } from './usage-aggregator.ts';
import { usageEventSchema, type UsageEvent } from './usage-event.ts';
import type { UsageSink, UsageSinkCallbacks } from './usage-sink.ts';
import { callSafely } from './call-safely.ts';

export interface MemoryUsageSinkOptions extends UsageSinkCallbacks {
  /** Prices events without a cost, as the worker would. Without it they cost what they carry. */
  prices?: PriceLookup;
}

const SETTLED = Promise.resolve();

/**
 * The sink of `all` without Redis: events go straight to an aggregator in this process, after
 * the same validation and pricing as through the queue and the worker. Recording is deferred
 * past the emit call, so the hot path never waits on it.
 */
export function createMemoryUsageSink(aggregator: UsageAggregator, options: MemoryUsageSinkOptions = {}): UsageSink {
  const pending = new Set<Promise<void>>();
  let closed = false;

  function record(event: UsageEvent): void {
    const priced = options.prices === undefined ? event : priceUsageEvent(event, options.prices);
    const recording = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => aggregator.record(priced))
      .then(
        () => undefined,
        (error: unknown) => callSafely(() => options.onError?.(error)),
      )
      .finally(() => pending.delete(recording));
    pending.add(recording);
  }

  return {
    // Nothing here outlives the process, so nothing is worth waiting for: settled at once.
    emit(event: UsageEvent): Promise<void> {
      try {
        if (closed) {
          callSafely(() => options.onDrop?.(1, 'closed'));
          return SETTLED;
        }
        const parsed = usageEventSchema.safeParse(event);
        if (!parsed.success) {
          callSafely(() => options.onDrop?.(1, 'invalid'));
          callSafely(() => options.onError?.(parsed.error));
          return SETTLED;
        }
        record(parsed.data);
      } catch (error) {
        // A throwing price lookup must not reach the request.
        callSafely(() => options.onError?.(error));
      }
      return SETTLED;
    },

    async close(): Promise<void> {
      closed = true;
      while (pending.size > 0) await Promise.all(pending);
    },
  };
}
