export {
  USAGE_BATCH_JOB_NAME,
  USAGE_JOB_NAME,
  USAGE_QUEUE_NAME,
  usageBatchJobId,
  usageEventSchema,
  type UsageBatch,
  type UsageEvent,
} from './usage-event.ts';
export { parseUsageEvent } from './is-usage-event.ts';
export { USAGE_JOB_OPTIONS } from './usage-job-options.ts';
export type { UsageDropReason, UsageSink, UsageSinkCallbacks } from './usage-sink.ts';
export type { UsageAggregator, UsageGroupBy, UsageQuery, UsageRow } from './usage-aggregator.ts';
export type { UsageMetric, UsageTotals } from './usage-totals.ts';
export { UsageQueryError, isUsageQueryError } from './usage-query-error.ts';
export { MAX_DAILY_QUERY_DAYS, MAX_QUERY_DAYS } from './query-aggregates.ts';
export { requestMarkerKey } from './keys.ts';
export { decodeStagedBatch, encodeStagedBatch, readStagedEvents, stagedUsageKeys, type StagedEvents, type StagedUsageKeys } from './staged-usage.ts';
export { DEFAULT_RETENTION, MIN_MARKER_TTL_MS, type UsageRetention } from './record-plan.ts';
export { computeCostMicros, priceUsageEvent, type ModelPrice, type PriceLookup } from './prices.ts';
export { createMemoryUsageSink, type MemoryUsageSinkOptions } from './memory-usage-sink.ts';
export { createRecordingUsageSink } from './recording-usage-sink.ts';
export type { BufferedUsageSink, BufferedUsageSinkOptions } from './buffered-usage-sink.ts';
export { createMemoryUsageAggregator, type MemoryUsageAggregatorOptions } from './memory-usage-aggregator.ts';
