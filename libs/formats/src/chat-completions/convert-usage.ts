import type { CanonicalUsage } from '@switchyard/canonical';
import type { ChatUsage } from './response-schema.ts';

/** The usage object chat-completions answers and usage chunks carry (protocols.md §3.4, §10.6). */
export interface ChatUsageBody {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
  completion_tokens_details: { reasoning_tokens: number };
}

/** Chat totals already include cached and reasoning tokens, as canonical totals do (usage.ts). */
export function convertToCanonicalUsage(usage: ChatUsage): CanonicalUsage {
  const canonical: CanonicalUsage = {
    inputTokens: usage.prompt_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? 0,
  };
  const cacheRead = usage.prompt_tokens_details?.cached_tokens;
  if (cacheRead != null) canonical.cacheReadTokens = cacheRead;
  const cacheWrite = usage.prompt_tokens_details?.cache_write_tokens;
  if (cacheWrite != null) canonical.cacheWriteTokens = cacheWrite;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (reasoning != null) canonical.reasoningTokens = reasoning;
  return canonical;
}

export function convertToChatUsage(usage: CanonicalUsage): ChatUsageBody {
  const promptDetails: ChatUsageBody['prompt_tokens_details'] = { cached_tokens: usage.cacheReadTokens ?? 0 };
  if (usage.cacheWriteTokens !== undefined) promptDetails.cache_write_tokens = usage.cacheWriteTokens;
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: promptDetails,
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  };
}

/** An upstream that sent no usage at all: bill nothing from it, and say the numbers are ours. */
export function missingUsage(): CanonicalUsage {
  return { inputTokens: 0, outputTokens: 0, estimated: true };
}
