import { hash } from 'node:crypto';
import { z } from 'zod';

/** The BullMQ queue usage events travel on. BullMQ forbids `:` in queue names. */
export const USAGE_QUEUE_NAME = 'switchyard-usage';

/**
 * The job name of a single usage event: what routers before batching sent, and what a worker
 * still accepts from them during a rolling deploy (the name shows in dashboards).
 */
export const USAGE_JOB_NAME = 'usage';

/** The job name of a batch of usage events, what routers send now (`UsageBatch`). */
export const USAGE_BATCH_JOB_NAME = 'usage-batch';

const count = z.number().int().nonnegative();

/**
 * One finished request, as the router reports it: the job payload, shared by producer and
 * consumer (style-anchors §5, Langfuse's rule).
 *
 * Rolling deploys run old routers beside new workers and the reverse, with jobs in flight
 * across both, so the schema is additive only:
 * - a field added later is always `.optional()`, and the worker copes with its absence;
 * - ids (`format`, `upstreamProtocol`, `provider`) are plain strings, not enums, so an old
 *   worker accepts a format added after it was built;
 * - unknown fields are stripped, not refused: a new router's extra field never fails an old worker.
 */
export const usageEventSchema = z.object({
  /** The gateway request id (`x-request-id`): the idempotency key of the whole pipeline. */
  requestId: z.string().min(1),
  tenantId: z.string().min(1),
  keyId: z.string().min(1),
  /** The client format id (`chat-completions`, `responses`, `messages`, `generate-content`). */
  format: z.string().min(1),
  /** The protocol the upstream spoke, when one was called. */
  upstreamProtocol: z.string().min(1).optional(),
  /** The provider id of the deployment that answered. */
  provider: z.string().min(1).optional(),
  /** The public model name the client asked for; usage is aggregated and priced by it. */
  model: z.string().min(1),
  /** The deployment's model id upstream. */
  upstreamModel: z.string().min(1).optional(),
  /** The HTTP status the client received; 400 and above count as errors. */
  status: z.number().int().min(100).max(599),
  stream: z.boolean(),
  /** Totals include their details (canonical usage): input counts cached reads, output counts reasoning. */
  inputTokens: count,
  outputTokens: count,
  cachedTokens: count.optional(),
  reasoningTokens: count.optional(),
  /** True when the gateway counted the tokens itself because the upstream reported none. */
  estimated: z.boolean(),
  latencyMs: z.number().nonnegative(),
  timeToFirstTokenMs: z.number().nonnegative().optional(),
  /** When the request finished, ms since the epoch; decides the UTC day and month it counts in. */
  occurredAt: z.number().int().nonnegative(),
  /** Cost in millionths of the price currency; when absent the worker prices the event itself. */
  costMicros: count.optional(),
});

export type UsageEvent = z.infer<typeof usageEventSchema>;

/**
 * A batch of events: what a router stages in one round trip, and the payload of a `usage-batch`
 * job, which a worker's mover fills with many staged batches. Jobs of many events rather than
 * one each, because BullMQ's own bookkeeping (adding, taking, finishing a job: three script
 * calls and their replies) costs the same whatever a job carries, and more than the counting
 * itself (docs/performance.md).
 */
export interface UsageBatch {
  events: UsageEvent[];
}

/**
 * The BullMQ job id of a batch, from the JSON a mover stores as its data: a move repeated after
 * a mover died between adding the job and trimming what it carried is ignored by BullMQ while
 * the first job is kept. Batches that only overlap get different ids, and the aggregator's
 * markers count their common events once; so do they for a move repeated across the upgrade
 * that named jobs after their request ids instead.
 */
export function usageBatchJobId(data: Buffer): string {
  return `b-${hash('sha256', data, 'base64url')}`;
}
