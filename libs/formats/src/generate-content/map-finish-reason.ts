import type { FinishReason, UnifiedFinishReason } from '@switchyard/canonical';

/**
 * protocols.md §10.5. A function call ends with `STOP` (Gemini has no tool-call reason), so the
 * caller says whether calls were seen. The tool-call oddities (`MALFORMED_FUNCTION_CALL`, …) and
 * `OTHER` read as `stop` like the table says; `RECITATION` is a filter by our policy.
 */
const UNIFIED_FOR_REASON: Record<string, UnifiedFinishReason> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content-filter',
  RECITATION: 'content-filter',
  LANGUAGE: 'content-filter',
  BLOCKLIST: 'content-filter',
  PROHIBITED_CONTENT: 'content-filter',
  SPII: 'content-filter',
  IMAGE_SAFETY: 'content-filter',
  IMAGE_PROHIBITED_CONTENT: 'content-filter',
  IMAGE_RECITATION: 'content-filter',
  IMAGE_OTHER: 'content-filter',
  OTHER: 'stop',
  FINISH_REASON_UNSPECIFIED: 'stop',
  MALFORMED_FUNCTION_CALL: 'stop',
  UNEXPECTED_TOOL_CALL: 'stop',
  TOO_MANY_TOOL_CALLS: 'stop',
};

interface GeminiOutcome {
  finishReason?: string | null;
  /** `promptFeedback.blockReason`: the prompt was refused and no candidate came back. */
  blockReason?: string | null;
  sawToolCall: boolean;
}

export function mapFinishReasonToCanonical({ finishReason, blockReason, sawToolCall }: GeminiOutcome): FinishReason {
  if (finishReason == null) {
    return blockReason == null ? { unified: 'other' } : { unified: 'content-filter', raw: blockReason };
  }
  const unified = UNIFIED_FOR_REASON[finishReason] ?? 'other';
  return { unified: unified === 'stop' && sawToolCall ? 'tool-calls' : unified, raw: finishReason };
}

const REASON_FOR_UNIFIED: Record<UnifiedFinishReason, string> = {
  stop: 'STOP',
  'tool-calls': 'STOP',
  length: 'MAX_TOKENS',
  'content-filter': 'SAFETY',
  error: 'OTHER',
  other: 'OTHER',
};

export function mapFinishReasonFromCanonical(finishReason: FinishReason): string {
  return REASON_FOR_UNIFIED[finishReason.unified];
}
