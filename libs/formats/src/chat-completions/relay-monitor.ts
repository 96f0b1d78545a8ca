import { GatewayError, type CanonicalUsage } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import { looksLikeObject, nonNullKeyPattern } from '../shared/index.ts';
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
  let started = false;
  let ended = false;
  let finishReasonSeen = false;
  let finished = false;
  let usage: CanonicalUsage | undefined;
  let error: GatewayError | undefined;

  function fail(cause: GatewayError): void {
    ended = true;
    error = cause;
  }

  function finish(): void {
    ended = true;
    finished = true;
  }

  return {
    push(event: SseEvent): void {
      if (ended) return;
      const data = event.data;
      if (data === '[DONE]') {
        if (started) finish();
        else fail(streamEndedWithoutAnswer());
        return;
      }
      if (started && event.event !== 'error' && looksLikeObject(data) && !WATCHED_KEYS.test(data)) return;
      const chunk = readStreamChunk(event);
      if (chunk instanceof GatewayError) {
        fail(chunk);
        return;
      }
      const choice = chunk.choices?.[0];
      if (!started) {
        if (choice === undefined && chunk.usage == null) return;
        started = true;
      }
      if (choice?.finish_reason != null) finishReasonSeen = true;
      if (chunk.usage != null) {
        usage = convertToCanonicalUsage(chunk.usage);
        if (finishReasonSeen) finish();
      }
    },

    end(): GatewayError | undefined {
      if (ended) return undefined;
      ended = true;
      return streamEndedEarly();
    },

    get usage() {
      return usage;
    },
    get finished() {
      return finished;
    },
    get error() {
      return error;
    },
  };
}
