/**
 * Token usage in one shape for every format (protocols.md §10.6). Totals include their
 * details: `inputTokens` counts cached reads and writes, `outputTokens` counts reasoning.
 * Billing always uses the upstream's numbers, never a client-format rendering.
 */
export interface CanonicalUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
  /** True when Switchyard counted the tokens itself because the upstream sent none. */
  estimated?: boolean;
}

export function emptyUsage(): CanonicalUsage {
  return { inputTokens: 0, outputTokens: 0 };
}

export function totalTokens(usage: CanonicalUsage): number {
  return usage.inputTokens + usage.outputTokens;
}
