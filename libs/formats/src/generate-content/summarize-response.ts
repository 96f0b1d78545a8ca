import { isRecord } from '../shared/index.ts';
import type { ResponseSummary } from '../wire-format.ts';
import { convertUsageToCanonical } from './convert-usage.ts';
import { usageMetadataSchema } from './response-schema.ts';

/** Usage and model version of a generateContent answer relayed untouched; only `usageMetadata` is validated. */
export function summarizeResponse(body: unknown): ResponseSummary | undefined {
  if (!isRecord(body) || body.usageMetadata == null) return undefined;
  const metadata = usageMetadataSchema.safeParse(body.usageMetadata);
  if (!metadata.success) return undefined;
  return { usage: convertUsageToCanonical(metadata.data), model: typeof body.modelVersion === 'string' ? body.modelVersion : undefined };
}
