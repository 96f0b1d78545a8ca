import type { FinishReason, UnifiedFinishReason } from '@switchyard/canonical';

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

const UNIFIED: Record<ChatFinishReason, UnifiedFinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  content_filter: 'content-filter',
};

function isChatFinishReason(value: string): value is ChatFinishReason {
  return Object.hasOwn(UNIFIED, value);
}

/**
 * protocols.md §10.5; values outside the five documented ones become `other`, raw kept. An
 * upstream that names no reason at all gets `other` too rather than an invented one.
 */
export function mapToCanonicalFinishReason(raw: string | null | undefined): FinishReason {
  if (raw == null) return { unified: 'other' };
  return { unified: isChatFinishReason(raw) ? UNIFIED[raw] : 'other', raw };
}

/**
 * Unified → chat (§10.5). A raw chat value that means the same thing is kept, so a legacy
 * `function_call` survives a chat → chat trip. `other` and `error` have no chat value: `stop`.
 */
export function mapToChatFinishReason(reason: FinishReason): ChatFinishReason {
  const raw = reason.raw;
  if (raw !== undefined && isChatFinishReason(raw) && UNIFIED[raw] === reason.unified) return raw;
  switch (reason.unified) {
    case 'length':
      return 'length';
    case 'tool-calls':
      return 'tool_calls';
    case 'content-filter':
      return 'content_filter';
    case 'stop':
    case 'error':
    case 'other':
      return 'stop';
    default: {
      const exhaustive: never = reason.unified;
      return exhaustive;
    }
  }
}
