import { isRecord } from '../shared/index.ts';
import type { ResponseSummary } from '../wire-format.ts';
import { convertUsageToCanonical } from './convert-usage.ts';
import { usageSchema } from './schema.ts';

/** Usage and model of a messages answer relayed untouched; only the small usage object is validated. */
export function summarizeResponse(body: unknown): ResponseSummary | undefined {
  if (!isRecord(body) || body.usage == null) return undefined;
  const usage = usageSchema.safeParse(body.usage);
  if (!usage.success) return undefined;
  return { usage: convertUsageToCanonical(usage.data), model: typeof body.model === 'string' ? body.model : undefined };
}
