import { GatewayError } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import { looksLikeObject, nonNullKeyPattern, RelayMonitorState } from '../shared/index.ts';
import type { RelayMonitor } from '../wire-format.ts';
import { convertToCanonicalUsage } from './convert-usage.ts';
import { readStreamChunk, streamEndedEarly, streamEndedWithoutAnswer } from './stream-decoder.ts';

/** A chunk to read: it may finish the answer, carry usage or report an error. */
const WATCHED_KEYS = nonNullKeyPattern(['finish_reason', 'usage', 'error']);

/**
 * What the router needs of a same-format chat stream, tracked as createStreamDecoder tracks it
 * but without reading content chunks:
 *
 * - `finish` comes on the first chunk with usage once a finish reason was seen (the usage
 *   chunk after the finish chunk, or the finish chunk itself where a server puts usage there),
 *   else at `[DONE]`; the usage is the last non-null `usage` seen (servers with continuous
 *   usage stats send it on every chunk).
 * - `[DONE]` before any chunk with a choice or usage, an error chunk and an unreadable chunk
 *   end the stream with an error; EOF without `[DONE]` is a truncation.
 *
 * Until the stream has started (the first chunks may be Azure's prompt-filter results) every
 * chunk is read. After that a chunk is read only when its text may hold a non-null `error`,
 * `finish_reason` or `usage` key, or is not `{…}`; the key checks cannot be fooled by content
 * because quotes inside JSON strings are escaped (shared/json-text.ts).
 */
export function createRelayMonitor(): RelayMonitor {
  return new ChatRelayMonitor();
}

class ChatRelayMonitor extends RelayMonitorState {
  #started = false;
  #finishReasonSeen = false;

  push(event: SseEvent): void {
    if (this.ended) return;
    const data = event.data;
    if (data === '[DONE]') {
      if (this.#started) this.finish();
      else this.fail(streamEndedWithoutAnswer());
      return;
    }
    if (this.#started && event.event !== 'error' && looksLikeObject(data) && !WATCHED_KEYS.test(data)) return;
    const chunk = readStreamChunk(event);
    if (chunk instanceof GatewayError) {
      this.fail(chunk);
      return;
    }
    const choice = chunk.choices?.[0];
    if (!this.#started) {
      if (choice === undefined && chunk.usage == null) return;
      this.#started = true;
    }
    if (choice?.finish_reason != null) this.#finishReasonSeen = true;
    if (chunk.usage != null) {
      this.knownUsage = convertToCanonicalUsage(chunk.usage);
      if (this.#finishReasonSeen) this.finish();
    }
  }

  protected endOfStream(): GatewayError {
    return streamEndedEarly();
  }
}
