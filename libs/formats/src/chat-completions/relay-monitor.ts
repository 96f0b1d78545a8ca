import { GatewayError } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import { CLOSE_BRACE, leadingRun, looksLikeObject, NATURAL, NONE_SKIPPED, RelayMonitorState } from '../shared/index.ts';
import type { RelayMonitor, SkippedEvents } from '../wire-format.ts';
import { CHUNK_HEAD, type ChunkSummary, OBFUSCATION, readChunkSummary, summarizeChunk, WATCHED_KEYS } from './read-chunk-summary.ts';
import { readStreamChunk, streamEndedEarly, streamEndedWithoutAnswer } from './stream-decoder.ts';

/** Where a run of skippable chunks ends: a watched key, or a chunk without a choice (the usage chunk, which a client may not get). */
const RUN_END = new RegExp(`${WATCHED_KEYS.source}|"choices":\\[\\]`);

/**
 * One whole content chunk event as OpenAI writes it (and the simulator, vLLM…): one `data:`
 * line, the chunk's head, one choice whose delta is text (with the role on the first), a null
 * finish reason and usage, at most OpenAI's padding, LF line ends. Every key in it is one of
 * these, so it holds no watched key; the text is the only free part, and a JSON string cannot
 * hold an unescaped quote or a line end. The text is matched as runs of plain characters
 * between escapes, not as an alternation per character: the same strings, with about a fifth
 * fewer instructions a chunk for a 60-character text (callgrind, docs/performance.md).
 */
const CONTENT_CHUNK_EVENT = new RegExp(
  `data: ${CHUNK_HEAD}\\[\\{"index":${NATURAL},"delta":\\{(?:"role":"assistant",)?"content":"[^"\\\\\\n\\r]*(?:\\\\[^\\n\\r][^"\\\\\\n\\r]*)*"` +
    `(?:,"refusal":null)?\\},(?:"logprobs":null,)?"finish_reason":null\\}\\](?:,"usage":null)?${OBFUSCATION}\\}\\n\\n`,
  'y',
);

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
 * because quotes inside JSON strings are escaped (shared/json-text.ts). A chunk that is read is
 * read from its text where it is laid out as OpenAI writes it (read-chunk-summary.ts), else
 * parsed.
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
    const chunk = this.#read(event);
    if (chunk === undefined) return;
    if (!this.#started) {
      if (!chunk.choice && chunk.usage === undefined) return;
      this.#started = true;
    }
    if (chunk.finished) this.#finishReasonSeen = true;
    if (chunk.usage !== undefined) {
      this.knownUsage = chunk.usage;
      if (this.#finishReasonSeen) this.finish();
    }
  }

  /** The chunk's summary, or undefined when it ended the stream. */
  #read(event: SseEvent): ChunkSummary | undefined {
    const summary = event.event === 'error' ? undefined : readChunkSummary(event.data);
    if (summary !== undefined) return summary;
    const chunk = readStreamChunk(event);
    if (!(chunk instanceof GatewayError)) return summarizeChunk(chunk);
    this.fail(chunk);
    return undefined;
  }

  /**
   * Once started, push() skips every `data: {…}` event without a watched key. Content chunks in
   * OpenAI's layout are taken by one sticky pattern each (CONTENT_CHUNK_EVENT), which need not
   * search every quote of the text for a key. Any other layout is taken by runBeforeWatchedKey.
   */
  skippablePrefix(text: string): SkippedEvents {
    if (!this.#started || this.ended) return NONE_SKIPPED;
    const shaped = leadingRun(CONTENT_CHUNK_EVENT, text);
    return shaped.events > 0 ? shaped : runBeforeWatchedKey(text);
  }

  protected endOfStream(): GatewayError {
    return streamEndedEarly();
  }
}

/**
 * The run of plain chunk events before the first watched key, or `"choices":[]` (a chunk the
 * relay may drop), in `text`: the keys are looked for once in the whole text, and the events
 * before the first are only delimited, one pass of a compiled pattern instead of one per event.
 * Only the plain shape is taken (one `data: ` line, LF line ends); anything else (an `event:`
 * or `id:` line, a comment, CRs, `[DONE]`) ends the run, and push() reads it. A match across
 * two events ends the run early, which costs only speed.
 */
function runBeforeWatchedKey(text: string): SkippedEvents {
  const stop = text.search(RUN_END);
  const limit = stop < 0 ? text.length : stop;
  let end = 0;
  let events = 0;
  for (;;) {
    const close = text.indexOf('\n\n', end);
    // The event must end before the limit, be one line, and hold an object.
    if (close < 0 || close + 2 > limit || text.indexOf('\n', end) !== close) break;
    if (!text.startsWith('data: {', end) || text.charCodeAt(close - 1) !== CLOSE_BRACE) break;
    end = close + 2;
    events++;
  }
  return { end, events };
}
