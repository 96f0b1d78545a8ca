import { parseUsageEvent, priceUsageEvent, type PriceLookup, type UsageAggregator } from '@switchyard/usage-events';
import { UnrecoverableError } from 'bullmq';
import { z } from 'zod';
import type { WorkerLogger } from '../worker-logger.ts';

export interface AggregateUsageOptions {
  aggregator: UsageAggregator;
  prices: PriceLookup;
  logger: WorkerLogger;
}

/** The part of a BullMQ job the processor reads. */
export interface UsageJob {
  id?: string | undefined;
  data: unknown;
}

export interface AggregateUsageResult {
  /** False when the request had been counted before: a redelivery, a repeated emit. */
  counted: boolean;
}

/**
 * The processor of the usage queue: validate, price, record. Recording is idempotent by
 * request id, so BullMQ may run a job any number of times (retry after an aggregator failure,
 * a stalled job taken over, a duplicate job) and the request still counts once.
 * A payload that fails the schema will fail every attempt: it is logged and failed as
 * unrecoverable, so it is kept among the failed jobs for inspection, never retried.
 */
export function createAggregateUsageProcessor(options: AggregateUsageOptions): (job: UsageJob) => Promise<AggregateUsageResult> {
  return async (job) => {
    // Checked in place; zod (which copies the event) only for what the check cannot vouch for.
    const parsed = parseUsageEvent(job.data);
    if (!parsed.success) {
      options.logger.error({ jobId: job.id, issues: parsed.error.issues }, 'invalid usage event dropped');
      throw new UnrecoverableError(`invalid usage event: ${z.prettifyError(parsed.error)}`);
    }
    const counted = await options.aggregator.record(priceUsageEvent(parsed.data, options.prices));
    return { counted };
  };
}
