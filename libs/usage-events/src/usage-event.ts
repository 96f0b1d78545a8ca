import { z } from 'zod';

/** The BullMQ queue usage events travel on. BullMQ forbids `:` in queue names. */
export const USAGE_QUEUE_NAME = 'switchyard-usage';

/** The job name of a usage event (a queue carries one kind of job; the name shows in dashboards). */
export const USAGE_JOB_NAME = 'usage';

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
 * The BullMQ job id of an event: derived from the request id, so a second emit of the same
 * event is ignored by BullMQ while the first job is still kept. BullMQ refuses ids containing
 * `:` and ids that look like integers; URI-encoding removes the one, the prefix the other.
 */
export function usageJobId(requestId: string): string {
  return `r-${encodeURIComponent(requestId)}`;
}
