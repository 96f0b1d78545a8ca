import type { JobsOptions } from 'bullmq';

/**
 * Options of every usage job. Recording is idempotent (the marker in lua/record-usage-n.lua),
 * so retries are always safe: a job whose aggregator call failed is retried with backoff for
 * about 17 minutes (1 s doubling, 10 attempts) before it is kept as failed.
 * Finished jobs are bounded (style-anchors §5): completed ones stay an hour (their ids keep
 * de-duplicating repeated emits meanwhile), failed ones a week for inspection.
 */
export const USAGE_JOB_OPTIONS = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: { age: 3_600, count: 10_000 },
  removeOnFail: { age: 7 * 86_400, count: 10_000 },
} as const satisfies JobsOptions;
