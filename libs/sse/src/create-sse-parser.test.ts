import { describe, expect, it } from 'vitest';
import { createSseParser } from './create-sse-parser.ts';
import type { SseEvent } from './sse-event.ts';

function parseAll(chunks: string[]): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createSseParser((event) => events.push(event));
  const encoder = new TextEncoder();
  for (const chunk of chunks) parser.push(encoder.encode(chunk));
  parser.end();
  return events;
}

describe('createSseParser', () => {
  it('should read named events and data-only events', () => {
    expect(parseAll(['event: ping\ndata: {"type":"ping"}\n\n', 'data: [DONE]\n\n'])).toEqual([
      { event: 'ping', data: '{"type":"ping"}' },
      { event: undefined, data: '[DONE]' },
    ]);
  });

  it('should accept CRLF line ends as generate-content fixtures use them', () => {
    expect(parseAll(['data: {"a":1}\r\n\r\ndata: {"a":2}\r\n\r\n'])).toEqual([
      { event: undefined, data: '{"a":1}' },
      { event: undefined, data: '{"a":2}' },
    ]);
  });

  it('should join an event split across chunks, including inside a multi-byte character', () => {
    const bytes = new TextEncoder().encode('data: {"t":"å"}\n\n');
    const events: SseEvent[] = [];
    const parser = createSseParser((event) => events.push(event));
    parser.push(bytes.slice(0, 12));
    parser.push(bytes.slice(12));
    parser.end();
    expect(events).toEqual([{ event: undefined, data: '{"t":"å"}' }]);
  });

  it('should read the same events when each chunk is decoded and then fed, text kept back included', () => {
    const bytes = new TextEncoder().encode('data: {"t":"å"}\n\nevent: e\ndata: x\n\n');
    const events: SseEvent[] = [];
    const parser = createSseParser((event) => events.push(event));
    // The first piece ends inside "å": decode keeps its first byte back for the next.
    const first = parser.decode(bytes.slice(0, 13));
    expect(first).toBe('data: {"t":"');
    parser.feed(first);
    parser.feed(parser.decode(bytes.slice(13)));
    parser.end();
    expect(events).toEqual([
      { event: undefined, data: '{"t":"å"}' },
      { event: 'e', data: 'x' },
    ]);
  });

  it('should skip comments and deliver a final event without a blank line', () => {
    expect(parseAll([': keep-alive\n\n', 'data: last'])).toEqual([{ event: undefined, data: 'last' }]);
  });
});
