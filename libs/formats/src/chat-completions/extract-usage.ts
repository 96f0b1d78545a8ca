import type { CanonicalUsage } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import { convertToCanonicalUsage } from './convert-usage.ts';
import { isRecord, nonNullKeyPattern } from '../shared/index.ts';
import { chatUsageSchema } from './response-schema.ts';

/**
 * Whether a chunk's text may carry usage: with include_usage every other chunk says
 * `"usage":null`, and inside string content the key's quotes would be escaped, so text cannot
 * fool the check (shared/json-text.ts).
 */
export function mayCarryUsage(data: string): boolean {
  return USAGE.test(data);
}

const USAGE = nonNullKeyPattern(['usage']);

/**
 * Usage from one event of a chat stream piped through untouched (same-format fast path).
 * Called on every chunk, so JSON is parsed only for the one that can carry usage.
 */
export function extractUsage(event: SseEvent): Partial<CanonicalUsage> | undefined {
  const data = event.data;
  if (!mayCarryUsage(data)) return undefined;
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (!isRecord(chunk) || chunk.usage == null) return undefined;
  const usage = chatUsageSchema.safeParse(chunk.usage);
  return usage.success ? convertToCanonicalUsage(usage.data) : undefined;
}
