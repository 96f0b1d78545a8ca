import type { RelayMonitor, SkippedEvents } from '@switchyard/formats';
import type { SseEvent, SseParser } from '@switchyard/sse';

/** A monitor whose format has runs of events it never reads. */
export type SkippingMonitor = RelayMonitor & { skippablePrefix(text: string): SkippedEvents };

export function canSkip(monitor: RelayMonitor | undefined): monitor is SkippingMonitor {
  return monitor?.skippablePrefix !== undefined;
}

/** Where a skipping reader hands what it read itself, as the bytes that came. */
export interface SkippedSink {
  /** A run of whole events the monitor would skip unread. */
  run(bytes: Buffer, events: number): void;
  /** One plain event (see plainEvent) read without the parser: what the parser would have delivered, and its bytes. */
  event(event: SseEvent, bytes: Buffer): void;
}

const EVENT_FIELD = 'event: ';
const DATA_FIELD = 'data: ';

/**
 * The event between `start` and its blank line at `close` (in a read's Latin-1 view, no CR in it)
 * as the parser would deliver it, when it is plain: an optional `event:` line naming it and one
 * `data:` line. Else undefined, and the parser reads it. Names and data are decoded from the
 * bytes as UTF-8, as the parser decodes them.
 */
function plainEvent(chunk: Buffer, text: string, start: number, close: number): SseEvent | undefined {
  let name: string | undefined;
  let dataLine = start;
  if (text.startsWith(EVENT_FIELD, start)) {
    const nameEnd = text.indexOf('\n', start);
    // An empty name is the parser's to read (it means the default type).
    if (nameEnd === start + EVENT_FIELD.length || nameEnd === close) return undefined;
    dataLine = nameEnd + 1;
    if (!text.startsWith(DATA_FIELD, dataLine) || text.indexOf('\n', dataLine) !== close) return undefined;
    name = chunk.toString('utf8', start + EVENT_FIELD.length, nameEnd);
  } else if (!text.startsWith(DATA_FIELD, start) || text.indexOf('\n', start) !== close) {
    return undefined;
  }
  return { event: name, data: chunk.toString('utf8', dataLine + DATA_FIELD.length, close) };
}

/**
 * Reads a watched same-format stream without decoding or re-encoding what it relays. While a
 * read starts on an event boundary it is looked at as Latin-1, one character per byte, so an
 * offset in the text is an offset in the bytes. That view is exact for everything looked for:
 * the SSE framing and the watched JSON keys are ASCII, and no byte of a multi-byte UTF-8
 * character is. So the runs of events the monitor would skip unread (most of a stream: content
 * deltas) are handed on as views of the read, delimited but not parsed one by one; a plain event
 * (an optional `event:` line and one `data:` line) is decoded alone for the monitor and handed on
 * as its bytes; anything else (`id:` lines, comments, CRs, several data lines) goes through the
 * parser, whose callback reads and relays it as before.
 * The rest of a read that ends inside an event, and every read after it until one ends on a
 * blank line again, goes to the parser too (docs/performance.md).
 */
export function createSkippingReader(parser: SseParser, monitor: SkippingMonitor, sink: SkippedSink): (chunk: Buffer) => void {
  let atBoundary = true;
  return (chunk) => {
    if (!atBoundary) {
      feedRest(chunk);
      return;
    }
    const text = chunk.toString('latin1');
    // From the first CR on, events go to the parser, which reads a CR as a line end.
    const firstCr = text.indexOf('\r');
    let start = 0;
    while (start < text.length) {
      if (!monitor.finished && monitor.error === undefined) {
        const skipped = monitor.skippablePrefix(start === 0 ? text : text.slice(start));
        if (skipped.events > 0) {
          sink.run(chunk.subarray(start, start + skipped.end), skipped.events);
          start += skipped.end;
          continue;
        }
      }
      const close = text.indexOf('\n\n', start);
      if (close < 0) break;
      const end = close + 2;
      const event = firstCr < 0 || firstCr > close ? plainEvent(chunk, text, start, close) : undefined;
      if (event === undefined) parser.feed(parser.decode(chunk.subarray(start, end)));
      else sink.event(event, chunk.subarray(start, end));
      start = end;
    }
    if (start < chunk.length) feedRest(start === 0 ? chunk : chunk.subarray(start));
  };

  function feedRest(bytes: Buffer): void {
    const text = parser.decode(bytes);
    parser.feed(text);
    atBoundary = text.endsWith('\n\n');
  }
}
