/** Why generation stopped, unified across formats, with the vendor's own value kept beside it. */
export type UnifiedFinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other';

export interface FinishReason {
  unified: UnifiedFinishReason;
  /** The upstream's value as sent (`end_turn`, `MAX_TOKENS`, …). */
  raw?: string;
  /** The stop sequence that matched, when the upstream says which. */
  stopSequence?: string;
}
