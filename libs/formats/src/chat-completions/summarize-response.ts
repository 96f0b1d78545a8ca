import { isRecord } from '../shared/index.ts';
import type { ResponseSummary } from '../wire-format.ts';
import { convertToCanonicalUsage } from './convert-usage.ts';
import { chatUsageSchema } from './response-schema.ts';

/** Usage and model of a chat completion relayed untouched; only the small usage object is validated. */
export function summarizeResponse(body: unknown): ResponseSummary | undefined {
  if (!isRecord(body) || body.usage == null) return undefined;
  const usage = chatUsageSchema.safeParse(body.usage);
  if (!usage.success) return undefined;
  return { usage: convertToCanonicalUsage(usage.data), model: typeof body.model === 'string' ? body.model : undefined };
}
