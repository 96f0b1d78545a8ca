import { createBufferedUsageSink, type BufferedUsageSink, type BufferedUsageSinkOptions } from './buffered-usage-sink.ts';
import type { UsageAggregator } from './usage-aggregator.ts';

const CLOSED = Promise.resolve();

/**
 * The sink of `all` with Redis: the router and the aggregates live in one process, so its
 * events are recorded in the Redis aggregates from there, as the worker would record them, and
 * never staged, moved into a job and parsed again (docs/architecture.md, "Usage in `all`").
 * The buffering, its bounds and its retries are the staging sink's; a batch is recorded once
 * the aggregator's calls for it resolve (one script call per tenant), and a
 * batch recorded twice after a timeout counts once by its markers. Events arrive priced by the
 * router, which holds the catalog. The aggregator stays open: its owner closes it, after this.
 */
export function createRecordingUsageSink(aggregator: UsageAggregator, options: BufferedUsageSinkOptions = {}): BufferedUsageSink {
  return createBufferedUsageSink(options, () => ({
    deliver: (events) => aggregator.record(events),
    close: () => CLOSED,
  }));
}
