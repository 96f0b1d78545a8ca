import type { CanonicalUsage } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import { convertInputUsageToCanonical, type MessagesUsage } from './convert-usage.ts';
import { parseStreamEvent } from './parse-stream-event.ts';

function outputUsage(usage: MessagesUsage): Partial<CanonicalUsage> {
  const output: Partial<CanonicalUsage> = {};
  if (typeof usage.output_tokens === 'number') output.outputTokens = usage.output_tokens;
  const thinking = usage.output_tokens_details?.thinking_tokens;
  if (typeof thinking === 'number') output.reasoningTokens = thinking;
  return output;
}

/**
 * Usage from one event of a messages stream, for the same-format fast path (§11.1): input counts
 * in `message_start`, cumulative output in `message_delta`. A `message_delta` repeats input
 * counts only in recent API versions and sends null for the unchanged ones, so its input
 * counts are used only when all three are there — a partial sum would under-count.
 */
export function extractUsage(event: SseEvent): Partial<CanonicalUsage> | undefined {
  // Most events are deltas without usage; skip their JSON parse.
  if (!event.data.includes('"usage"')) return undefined;
  const parsed = parseStreamEvent(event.data);
  if (parsed?.type === 'message_start') {
    const usage = parsed.message?.usage;
    return usage === undefined || usage === null ? undefined : convertInputUsageToCanonical(usage);
  }
  if (parsed?.type !== 'message_delta' || parsed.usage === undefined || parsed.usage === null) return undefined;
  const usage = parsed.usage;
  const complete =
    typeof usage.input_tokens === 'number' &&
    typeof usage.cache_creation_input_tokens === 'number' &&
    typeof usage.cache_read_input_tokens === 'number';
  return complete ? { ...convertInputUsageToCanonical(usage), ...outputUsage(usage) } : outputUsage(usage);
}
