import type { CanonicalUsage } from '@switchyard/canonical';

/** messages usage as the wire carries it; recent API versions send null for fields that do not apply. */
export interface MessagesUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
}

/**
 * Folds one usage report into the running one, as the stream decoder (and the relay monitor)
 * do across `message_start` and `message_delta`: counts are cumulative and null means
 * "unchanged" (as the SDK accumulates them), never zero. False when there was no report.
 */
export function mergeUsage(into: MessagesUsage, next: MessagesUsage | null | undefined): boolean {
  if (next === undefined || next === null) return false;
  into.input_tokens = next.input_tokens ?? into.input_tokens;
  into.output_tokens = next.output_tokens ?? into.output_tokens;
  into.cache_creation_input_tokens = next.cache_creation_input_tokens ?? into.cache_creation_input_tokens;
  into.cache_read_input_tokens = next.cache_read_input_tokens ?? into.cache_read_input_tokens;
  into.output_tokens_details = next.output_tokens_details ?? into.output_tokens_details;
  return true;
}

/**
 * messages `input_tokens` excludes cache reads and writes; the canonical total includes them
 * (protocols.md §5.4, §10.6). An upstream that sent no usage at all gets an estimated zero.
 */
export function convertUsageToCanonical(usage: MessagesUsage | null | undefined): CanonicalUsage {
  if (usage === null || usage === undefined) return { inputTokens: 0, outputTokens: 0, estimated: true };
  const cacheWrite = usage.cache_creation_input_tokens;
  const cacheRead = usage.cache_read_input_tokens;
  const result: CanonicalUsage = {
    inputTokens: (usage.input_tokens ?? 0) + (cacheWrite ?? 0) + (cacheRead ?? 0),
    outputTokens: usage.output_tokens ?? 0,
  };
  if (typeof cacheRead === 'number') result.cacheReadTokens = cacheRead;
  if (typeof cacheWrite === 'number') result.cacheWriteTokens = cacheWrite;
  const thinking = usage.output_tokens_details?.thinking_tokens;
  if (typeof thinking === 'number') result.reasoningTokens = thinking;
  return result;
}

/** The input half only, as `message_start` tells it before any output exists. */
export function convertInputUsageToCanonical(usage: MessagesUsage): Partial<CanonicalUsage> {
  const { input_tokens: uncached, cache_creation_input_tokens: cacheWrite, cache_read_input_tokens: cacheRead } = usage;
  const input: Partial<CanonicalUsage> = {};
  if (typeof uncached === 'number') input.inputTokens = uncached + (cacheWrite ?? 0) + (cacheRead ?? 0);
  if (typeof cacheRead === 'number') input.cacheReadTokens = cacheRead;
  if (typeof cacheWrite === 'number') input.cacheWriteTokens = cacheWrite;
  return input;
}

/** messages input counts: `input_tokens` without the cached tokens, as §10.6 converts. */
export interface MessagesInputUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export function convertInputUsageFromCanonical(usage: Partial<CanonicalUsage>): MessagesInputUsage {
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const cacheRead = usage.cacheReadTokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage.inputTokens ?? 0) - cacheWrite - cacheRead),
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
  };
}

export function convertUsageFromCanonical(usage: CanonicalUsage): MessagesInputUsage & { output_tokens: number } {
  const input = convertInputUsageFromCanonical(usage);
  return {
    input_tokens: input.input_tokens,
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: input.cache_creation_input_tokens,
    cache_read_input_tokens: input.cache_read_input_tokens,
  };
}
