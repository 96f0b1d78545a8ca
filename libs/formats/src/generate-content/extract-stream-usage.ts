import type { CanonicalUsage } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import { convertUsageToCanonical } from './convert-usage.ts';
import { isRecord } from '../shared/index.ts';
import { usageMetadataSchema } from './response-schema.ts';

/**
 * Usage from one event of a Gemini stream on the same-format fast path, where nothing else is
 * decoded. Most chunks carry no usage, so they are skipped before any parsing; the caller keeps
 * the last snapshot (§12.12).
 */
export function extractStreamUsage(event: SseEvent): Partial<CanonicalUsage> | undefined {
  if (!event.data.includes('"usageMetadata"')) return undefined;
  return readStreamUsage(event.data);
}

/** The usage of one chunk's text, parsed: its top-level `usageMetadata`, when there is a valid one. */
export function readStreamUsage(data: string): CanonicalUsage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  const metadata = usageMetadataSchema.safeParse(value.usageMetadata);
  return metadata.success ? convertUsageToCanonical(metadata.data) : undefined;
}
