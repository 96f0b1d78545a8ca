import { GatewayError, type CanonicalUsage } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import { looksLikeObject, nonNullKeyPattern, RelayMonitorState } from '../shared/index.ts';
import type { RelayMonitor } from '../wire-format.ts';
import { convertUsageToCanonical } from './convert-usage.ts';
import { readStreamUsage } from './extract-stream-usage.ts';
import { readStreamChunk, streamEndedEarly } from './stream-decoder.ts';

/** Chunks to read while no finish or block reason was seen, and after. */
const WATCHED_KEYS = nonNullKeyPattern(['error', 'finishReason', 'blockReason']);
const ERROR_KEY = nonNullKeyPattern(['error']);
const USAGE_KEY = nonNullKeyPattern(['usageMetadata']);

/** Usage-bearing chunks kept unparsed before the newest of them is read. */
const PENDING_LIMIT = 8;

/**
 * What the router needs of a same-format generate-content stream, tracked as
 * createStreamDecoder tracks it but without reading content:
 *
 * - EOF is the normal end: `finish` comes from end() when any chunk's first candidate had a
 *   finish reason or the prompt feedback a block reason, and carries the last non-null
 *   `usageMetadata` (a running snapshot, never summed). EOF without either reason is a
 *   truncation (worded by whether anything had arrived).
 * - The Google error envelope, text that is not JSON and JSON that is no chunk end the stream
 *   with an error. Blank events are skipped.
 *
 * The first chunk is read in full. After it a chunk is read only when its text may hold a
 * non-null `error` key, or a `finishReason` / `blockReason` before one was seen, or is not
 * `{…}` (shared/json-text.ts: content cannot fake a key, its quotes would be escaped). Gemini
 * sends `usageMetadata` on most chunks, and only the last one counts, so usage-bearing chunks
 * are kept unparsed and only the newest is read: when `usage` is asked for, or when
 * PENDING_LIMIT of them wait (bounding what is held). Older ones are read only if the newest
 * turns out to carry no top-level usage after all (its key was nested, e.g. in tool arguments).
 */
export function createRelayMonitor(): RelayMonitor {
  return new GenerateContentRelayMonitor();
}

class GenerateContentRelayMonitor extends RelayMonitorState {
  #started = false;
  #reasonSeen = false;
  /** Texts of chunks that may carry usage, oldest first, all newer than the one `knownUsage` came from. */
  #pending: string[] = [];

  /** Reads the newest held usage-bearing chunk first, so the answer is current. */
  override get usage(): CanonicalUsage | undefined {
    if (this.#pending.length > 0) this.#readPending();
    return this.knownUsage;
  }

  push(event: SseEvent): void {
    if (this.ended) return;
    const data = event.data;
    if (this.#started && looksLikeObject(data) && !(this.#reasonSeen ? ERROR_KEY : WATCHED_KEYS).test(data)) {
      if (USAGE_KEY.test(data)) {
        this.#pending.push(data);
        if (this.#pending.length >= PENDING_LIMIT) this.#readPending();
      }
      return;
    }
    if (data.trim() === '') return;
    const chunk = readStreamChunk(data);
    if (chunk instanceof GatewayError) {
      this.fail(chunk);
      return;
    }
    this.#started = true;
    if (chunk.usageMetadata != null) {
      this.knownUsage = convertUsageToCanonical(chunk.usageMetadata);
      this.#pending = [];
    }
    if (chunk.promptFeedback?.blockReason != null || chunk.candidates?.[0]?.finishReason != null) this.#reasonSeen = true;
  }

  protected endOfStream(): GatewayError | undefined {
    if (!this.#reasonSeen) return streamEndedEarly(this.#started);
    this.finished = true;
    return undefined;
  }

  /** The newest held chunk with top-level usage wins; older ones are read only if it has none. */
  #readPending(): void {
    const pending = this.#pending;
    this.#pending = [];
    for (let index = pending.length - 1; index >= 0; index--) {
      const read = readStreamUsage(pending[index] as string);
      if (read !== undefined) {
        this.knownUsage = read;
        return;
      }
    }
  }
}
