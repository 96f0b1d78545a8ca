import type { CanonicalUsage } from '@switchyard/canonical';
import type { UsageMetadata } from './response-schema.ts';

/**
 * `usageMetadata` → canonical usage (protocols.md §10.6). `candidatesTokenCount` excludes
 * thoughts, so output adds `thoughtsTokenCount` back (forgetting it under-bills thinking
 * models); tool-use prompt tokens are input. No metadata at all means the upstream said nothing.
 */
export function convertUsageToCanonical(metadata: UsageMetadata | null | undefined): CanonicalUsage {
  if (metadata == null) return { inputTokens: 0, outputTokens: 0, estimated: true };
  const usage: CanonicalUsage = {
    inputTokens: (metadata.promptTokenCount ?? 0) + (metadata.toolUsePromptTokenCount ?? 0),
    outputTokens: (metadata.candidatesTokenCount ?? 0) + (metadata.thoughtsTokenCount ?? 0),
  };
  if (metadata.cachedContentTokenCount != null) usage.cacheReadTokens = metadata.cachedContentTokenCount;
  if (metadata.thoughtsTokenCount != null) usage.reasoningTokens = metadata.thoughtsTokenCount;
  return usage;
}

/** Canonical usage → `usageMetadata`, with `candidatesTokenCount` excluding thoughts as Google counts it. */
export function convertUsageFromCanonical(usage: CanonicalUsage): Record<string, number> {
  const reasoning = usage.reasoningTokens ?? 0;
  const metadata: Record<string, number> = {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: usage.outputTokens - reasoning,
    totalTokenCount: usage.inputTokens + usage.outputTokens,
  };
  if (usage.reasoningTokens !== undefined) metadata.thoughtsTokenCount = usage.reasoningTokens;
  if (usage.cacheReadTokens !== undefined) metadata.cachedContentTokenCount = usage.cacheReadTokens;
  return metadata;
}
