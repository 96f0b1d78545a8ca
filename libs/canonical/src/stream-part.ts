import type { FinishReason } from './finish-reason.ts';
import type { GatewayError } from './gateway-error.ts';
import type { VendorSignature } from './message-parts.ts';
import type { CanonicalUsage } from './usage.ts';

/**
 * What a stream decoder yields and a stream encoder consumes. Decoders emit deltas and the
 * tool-call lifecycle; encoders own block/item bookkeeping (opening a text block on the first
 * text-delta, closing it when something else arrives), so decoders never emit empty blocks.
 *
 * Order: `start` first; then any mix of deltas and tool calls; then exactly one of `finish`
 * or `error` last.
 */
export type StreamPart =
  | {
      type: 'start';
      id: string;
      /** Model as the upstream named it. */
      model: string;
      /** Unix seconds. */
      created: number;
      /** Input counts when the upstream tells them early (messages `message_start`). */
      usage?: Partial<CanonicalUsage>;
    }
  | { type: 'text-delta'; text: string; signature?: VendorSignature }
  | { type: 'refusal-delta'; text: string }
  | { type: 'reasoning-delta'; text: string; id?: string }
  /** Closes the current reasoning block, carrying its signature or redacted payload. */
  | { type: 'reasoning-end'; signature?: VendorSignature; redactedData?: string; id?: string }
  | {
      type: 'tool-call-start';
      /** 0-based ordinal of this call among the answer's tool calls. */
      index: number;
      id: string;
      name: string;
    }
  | { type: 'tool-call-delta'; index: number; argumentsDelta: string }
  | { type: 'tool-call-end'; index: number; signature?: VendorSignature }
  /** Generated media (generate-content image output), whole. */
  | { type: 'file'; mediaType: string; data: string }
  | { type: 'finish'; finishReason: FinishReason; usage: CanonicalUsage }
  | { type: 'error'; error: GatewayError };

export type StreamPartType = StreamPart['type'];
