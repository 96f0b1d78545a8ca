export { startWorker, type StartWorkerOptions, type UsageWorker } from './start-worker.ts';
export { queryUsage, usageQueryParametersSchema, type UsageQueryParameters } from './query-usage.ts';
export { createAggregateUsageProcessor, type AggregateUsageOptions, type AggregateUsageResult, type UsageJob } from './processors/aggregate-usage.ts';
export type { WorkerLogger } from './worker-logger.ts';
