import { UsageQueryError, type UsageAggregator, type UsageRow } from '@switchyard/usage-events';
import { z } from 'zod';

/** The query string of GET /admin/v1/usage. */
export const usageQueryParametersSchema = z.object({
  tenant: z.string().min(1),
  /** First UTC day, YYYY-MM-DD. Default: the first day of `to`'s month. */
  from: z.string().optional(),
  /** Last UTC day, inclusive, YYYY-MM-DD. Default: today (UTC). */
  to: z.string().optional(),
  groupBy: z.enum(['day', 'month', 'model', 'key']).default('day'),
});

export type UsageQueryParameters = z.input<typeof usageQueryParametersSchema>;

/**
 * The admin usage query, for GET /admin/v1/usage?tenant=&from=&to=&groupBy=: validates the
 * query string and answers `{ data: rows }`. A bad query throws UsageQueryError (statusCode
 * 400), which fastify's error handling answers as a client error.
 */
export async function queryUsage(aggregator: UsageAggregator, parameters: unknown, now: number = Date.now()): Promise<{ data: UsageRow[] }> {
  const parsed = usageQueryParametersSchema.safeParse(parameters);
  if (!parsed.success) throw new UsageQueryError(z.prettifyError(parsed.error));
  const to = parsed.data.to ?? new Date(now).toISOString().slice(0, 10);
  const from = parsed.data.from ?? `${to.slice(0, 7)}-01`;
  const data = await aggregator.query({ tenantId: parsed.data.tenant, from, to, groupBy: parsed.data.groupBy });
  return { data };
}
