import { parseUsageEvent, priceUsageEvent, type PriceLookup, type UsageAggregator, type UsageEvent } from '@switchyard/usage-events';
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
  /** Events of the job counted now. */
  counted: number;
  /** Events whose request had been counted before: a redelivery, a repeated emit, an overlapping batch. */
  repeated: number;
}

/**
 * The processor of the usage queue: validate, price, record. A job carries a batch of events
 * (`UsageBatch`) or, from a router older than batching, one event; both are taken during a
 * rolling deploy. Recording is idempotent by request id, so BullMQ may run a job any number of
 * times (retry after an aggregator failure, a stalled job taken over, a duplicate job) and each
 * request still counts once.
 * An event that fails the schema will fail every attempt: the valid events of its job are
 * counted, then the invalid ones are logged and the job failed as unrecoverable, so it is kept
 * among the failed jobs for inspection, never retried.
 */
export function createAggregateUsageProcessor(options: AggregateUsageOptions): (job: UsageJob) => Promise<AggregateUsageResult> {
  const { aggregator, prices, logger } = options;
  return async (job) => {
    const payload = eventsOf(job.data);
    const valid: UsageEvent[] = [];
    const invalid: Array<{ index: number; error: z.ZodError }> = [];
    for (const [index, candidate] of payload.entries()) {
      // Checked in place; zod (which copies the event) only for what the check cannot vouch for.
      const parsed = parseUsageEvent(candidate);
      if (parsed.success) valid.push(priceUsageEvent(parsed.data, prices));
      else invalid.push({ index, error: parsed.error });
    }
    const outcomes = await aggregator.record(valid);
    const counted = outcomes.filter(Boolean).length;
    if (invalid.length > 0 || payload.length === 0) {
      const issues = invalid.map(({ index, error }) => ({ index, issues: error.issues }));
      logger.error({ jobId: job.id, counted, invalid: issues }, 'invalid usage event dropped');
      const reasons = invalid.map(({ index, error }) => `event ${index}: ${z.prettifyError(error)}`);
      throw new UnrecoverableError(`invalid usage event: ${payload.length === 0 ? 'a batch without events' : reasons.join('; ')}`);
    }
    return { counted, repeated: valid.length - counted };
  };
}

/** A batch's events, or the one event of a job from a router older than batching. */
function eventsOf(data: unknown): readonly unknown[] {
  if (typeof data === 'object' && data !== null && 'events' in data && Array.isArray(data.events)) return data.events as unknown[];
  return [data];
}
