import type { CanonicalUsage } from '@switchyard/canonical';

/** Usage as the Responses API writes it (protocols.md §4.2, §10.6). */
export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/**
 * Responses totals already include cached and reasoning tokens, the same convention as
 * canonical usage, so the numbers carry over unchanged. Takes the raw value because it reads
 * stream events that are not schema-checked; anything without counts means "no usage sent".
 */
export function usageToCanonical(usage: unknown): CanonicalUsage {
  if (typeof usage !== 'object' || usage === null) return { inputTokens: 0, outputTokens: 0, estimated: true };
  const wire = usage as Record<string, unknown>;
  const input = numberField(wire, 'input_tokens');
  const output = numberField(wire, 'output_tokens');
  if (input === undefined && output === undefined) return { inputTokens: 0, outputTokens: 0, estimated: true };
  const canonical: CanonicalUsage = { inputTokens: input ?? 0, outputTokens: output ?? 0 };
  const inputDetails = wire['input_tokens_details'];
  if (typeof inputDetails === 'object' && inputDetails !== null) {
    const details = inputDetails as Record<string, unknown>;
    const cacheRead = numberField(details, 'cached_tokens');
    const cacheWrite = numberField(details, 'cache_write_tokens');
    if (cacheRead !== undefined) canonical.cacheReadTokens = cacheRead;
    if (cacheWrite !== undefined) canonical.cacheWriteTokens = cacheWrite;
  }
  const outputDetails = wire['output_tokens_details'];
  if (typeof outputDetails === 'object' && outputDetails !== null) {
    const reasoning = numberField(outputDetails as Record<string, unknown>, 'reasoning_tokens');
    if (reasoning !== undefined) canonical.reasoningTokens = reasoning;
  }
  return canonical;
}

export function usageFromCanonical(usage: CanonicalUsage): ResponsesUsage {
  const inputDetails: ResponsesUsage['input_tokens_details'] = { cached_tokens: usage.cacheReadTokens ?? 0 };
  if (usage.cacheWriteTokens !== undefined) inputDetails.cache_write_tokens = usage.cacheWriteTokens;
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: inputDetails,
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

function numberField(record: Record<string, unknown>, key: string): number | undefined {
  const value = record[key];
  return typeof value === 'number' ? value : undefined;
}
