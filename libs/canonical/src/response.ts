import type { FinishReason } from './finish-reason.ts';
import type { ContentPart } from './message-parts.ts';
import type { CanonicalUsage } from './usage.ts';

/**
 * A complete (non-streaming) answer. One choice only: translation between formats supports
 * n = 1; n > 1 is served by the same-format fast path.
 * `content` holds assistant parts: text, refusal, reasoning, tool-call, image/file output.
 */
export interface CanonicalResponse {
  id: string;
  /** Model as the upstream named it. */
  model: string;
  /** Unix seconds. */
  created: number;
  content: ContentPart[];
  finishReason: FinishReason;
  usage: CanonicalUsage;
}
