import { isAscii } from 'node:buffer';
import type { RelayMonitor, SkippedEvents } from '@switchyard/formats';
import type { SseEvent, SseParser } from '@switchyard/sse';

/** A monitor whose format has runs of events it never reads. */
type SkippingMonitor = RelayMonitor & { skippablePrefix(text: string): SkippedEvents };

function hasRuns(monitor: RelayMonitor | undefined): monitor is SkippingMonitor {
  return monitor?.skippablePrefix !== undefined;
}

/**
 * Where a skipping reader hands what it read itself, with the bytes that came: `source` (the
 * read) from `from` to `to`, as offsets rather than a view made per event.
 */
export interface SkippedSink {
  /** A run of whole events the monitor would skip unread. */
  run(source: Buffer, from: number, to: number, events: number): void;
  /** One plain event (see plainEvent) read without the parser: what the parser would have delivered, and where its bytes are. */
  event(event: SseEvent, source: Buffer, from: number, to: number): void;
}

const EVENT_FIELD = 'event: ';
const DATA_FIELD = 'data: ';
const CRLF_BLANK = '\r\n\r\n';

/**
 * The event between `start` and its blank line at `close` (in a read's Latin-1 view, no CR in it)
 * as the parser would deliver it, when it is plain: an optional `event:` line naming it and one
 * `data:` line. Else undefined, and the parser reads it. Names and data are decoded from the
 * bytes as UTF-8, as the parser decodes them.
 */
function plainEvent(chunk: Buffer, text: string, ascii: boolean, start: number, close: number): SseEvent | undefined {
  let name: string | undefined;
  let dataLine = start;
  if (text.startsWith(EVENT_FIELD, start)) {
    const nameEnd = text.indexOf('\n', start);
    // An empty name is the parser's to read (it means the default type).
    if (nameEnd === start + EVENT_FIELD.length || nameEnd === close) return undefined;
    dataLine = nameEnd + 1;
    if (!text.startsWith(DATA_FIELD, dataLine) || text.indexOf('\n', dataLine) !== close) return undefined;
    name = decode(chunk, text, ascii, start + EVENT_FIELD.length, nameEnd);
  } else if (!text.startsWith(DATA_FIELD, start) || text.indexOf('\n', start) !== close) {
    return undefined;
  }
  return { event: name, data: decode(chunk, text, ascii, dataLine + DATA_FIELD.length, close) };
}

/** The UTF-8 text of `chunk` from `from` to `to`: a slice of its Latin-1 view when the read is ASCII. */
function decode(chunk: Buffer, text: string, ascii: boolean, from: number, to: number): string {
  return ascii ? text.slice(from, to) : chunk.toString('utf8', from, to);
}

/**
 * Whether the event at `start`, whose first CR is at `cr`, is one `data:` line ended by CRLF and
 * a blank CRLF line: how Google frames every generate-content event.
 */
function isCrlfDataEvent(text: string, start: number, cr: number): boolean {
  return text.startsWith(DATA_FIELD, start) && text.startsWith(CRLF_BLANK, cr) && text.indexOf('\n', start) === cr + 1;
}

/**
 * Reads a same-format stream without decoding or re-encoding what it relays: a watched one
 * beside its relay `monitor`, one whose answer is decoded without (no runs then). While a
 * read starts on an event boundary it is looked at as Latin-1, one character per byte, so an
 * offset in the text is an offset in the bytes. That view is exact for everything looked for:
 * the SSE framing and the watched JSON keys are ASCII, and no byte of a multi-byte UTF-8
 * character is. So the runs of events the monitor would skip unread (most of a chat or messages
 * stream: content deltas) are handed on as stretches of the read, delimited but not parsed one
 * by one; a plain event (an optional `event:` line and one `data:` line, LF line ends, or one
 * `data:` line in CRLF framing) is decoded alone for the monitor and handed on as its bytes;
 * anything else (`id:` lines, comments, other CRs, several data lines) goes through the parser,
 * whose callback reads and relays it as before, with the rest of its read. Every read after one
 * that ends inside an event goes to the parser too, until one ends on a blank line again
 * (docs/performance.md).
 */
export function createSkippingReader(parser: SseParser, monitor: RelayMonitor | undefined, sink: SkippedSink): (chunk: Buffer) => void {
  let atBoundary = true;
  return (chunk) => {
    if (!atBoundary) {
      feedRest(chunk);
      return;
    }
    const text = chunk.toString('latin1');
    // An ASCII read's Latin-1 view is its UTF-8 text too: names and data are cut out of it.
    const ascii = isAscii(chunk);
    // The first CR and the first blank line at or after `start` (-1: none in the rest of the
    // read), each looked for again only once `start` has passed it, so a read is scanned once
    // whatever its framing.
    let nextCr = text.indexOf('\r');
    let close = text.indexOf('\n\n');
    // Runs are LF-framed; once a read shows CRLF framing, its events are not looked at for one.
    let runs = hasRuns(monitor) ? monitor : undefined;
    let start = 0;
    while (start < text.length) {
      if (runs !== undefined && !runs.finished && runs.error === undefined) {
        const skipped = runs.skippablePrefix(start === 0 ? text : text.slice(start));
        if (skipped.events > 0) {
          sink.run(chunk, start, start + skipped.end, skipped.events);
          start += skipped.end;
          continue;
        }
      }
      if (nextCr >= 0 && nextCr < start) nextCr = text.indexOf('\r', start);
      if (close >= 0 && close < start) close = text.indexOf('\n\n', start);
      if (close >= 0 && (nextCr < 0 || nextCr > close)) {
        const end = close + 2;
        const event = plainEvent(chunk, text, ascii, start, close);
        if (event === undefined) parser.feed(parser.decode(chunk.subarray(start, end)));
        else sink.event(event, chunk, start, end);
        start = end;
      } else if (nextCr >= 0 && isCrlfDataEvent(text, start, nextCr)) {
        runs = undefined;
        const end = nextCr + CRLF_BLANK.length;
        sink.event({ event: undefined, data: decode(chunk, text, ascii, start + DATA_FIELD.length, nextCr) }, chunk, start, end);
        start = end;
      } else {
        // An unfinished event, or one with CRs the parser must read: it takes the rest of the read.
        break;
      }
    }
    if (start < chunk.length) feedRest(start === 0 ? chunk : chunk.subarray(start));
  };

  function feedRest(bytes: Buffer): void {
    const text = parser.decode(bytes);
    parser.feed(text);
    atBoundary = text.endsWith('\n\n') || text.endsWith(CRLF_BLANK);
  }
}
