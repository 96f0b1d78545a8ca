import { createParser } from 'eventsource-parser';
import type { SseEvent } from './sse-event.ts';

export interface SseParser {
  /** Feed raw bytes as they arrive; complete events are delivered to the callback synchronously. */
  push(chunk: Uint8Array): void;
  /**
   * push() in two steps, for a caller that reads part of the text itself: the bytes decoded
   * (a character split across chunks is completed by the next), then the text parsed. Whatever
   * is not fed must end on an event boundary, or the next event is read wrong.
   */
  decode(chunk: Uint8Array): string;
  feed(text: string): void;
  /** Flush a final event that was not followed by a blank line. */
  end(): void;
}

/**
 * Incremental SSE parsing on top of eventsource-parser (spec-complete: CR, LF and CRLF line ends,
 * comments, multi-line data), with a streaming UTF-8 decoder so multi-byte characters split
 * across TCP chunks survive.
 */
export function createSseParser(onEvent: (event: SseEvent) => void): SseParser {
  const decoder = new TextDecoder();
  const parser = createParser({
    onEvent(message) {
      onEvent({ event: message.event, data: message.data });
    },
  });
  return {
    push(chunk) {
      parser.feed(decoder.decode(chunk, { stream: true }));
    },
    decode: (chunk) => decoder.decode(chunk, { stream: true }),
    feed: (text) => parser.feed(text),
    end() {
      const rest = decoder.decode();
      // A trailing event without its blank line still counts (some upstreams close right after it).
      parser.feed(rest.endsWith('\n') ? `${rest}\n` : `${rest}\n\n`);
    },
  };
}
