import type { FinishReason, UnifiedFinishReason } from '@switchyard/canonical';

export type MessagesStopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

/** protocols.md §10.5: `pause_turn` is a stop for the client, which sends the turn back to continue. */
const UNIFIED_FOR_STOP_REASON: Record<MessagesStopReason, UnifiedFinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool-calls',
  refusal: 'content-filter',
};

function isMessagesStopReason(value: string): value is MessagesStopReason {
  return Object.hasOwn(UNIFIED_FOR_STOP_REASON, value);
}

export function mapStopReasonToCanonical(
  stopReason: string | null | undefined,
  stopSequence: string | null | undefined,
): FinishReason {
  if (stopReason === null || stopReason === undefined) return { unified: 'other' };
  const finishReason: FinishReason = {
    unified: isMessagesStopReason(stopReason) ? UNIFIED_FOR_STOP_REASON[stopReason] : 'other',
    raw: stopReason,
  };
  if (typeof stopSequence === 'string') finishReason.stopSequence = stopSequence;
  return finishReason;
}

/**
 * A messages upstream's own value is kept (so `pause_turn` and `model_context_window_exceeded`
 * survive); other formats map by meaning. `error`/`other` have no messages value: `end_turn` is
 * what a client can act on.
 */
export function mapStopReasonFromCanonical(finishReason: FinishReason): MessagesStopReason {
  if (finishReason.raw !== undefined && isMessagesStopReason(finishReason.raw)) return finishReason.raw;
  switch (finishReason.unified) {
    case 'stop':
      return finishReason.stopSequence === undefined ? 'end_turn' : 'stop_sequence';
    case 'length':
      return 'max_tokens';
    case 'tool-calls':
      return 'tool_use';
    case 'content-filter':
      return 'refusal';
    case 'error':
    case 'other':
      return 'end_turn';
    default: {
      const exhaustive: never = finishReason.unified;
      return exhaustive;
    }
  }
}
