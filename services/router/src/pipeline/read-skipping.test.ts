import type { FormatId, GatewayError, StreamPart } from '@switchyard/canonical';
import { wireFormats } from '@switchyard/formats';
import { createSseParser, formatSseEvent, type SseEvent } from '@switchyard/sse';
import { describe, expect, it } from 'vitest';
import { createSkippingReader } from './read-skipping.ts';

const USAGE_CHUNK = '"choices":[]';

/** A stream as an upstream of `format` sends it: its start, `deltas` text deltas, the finish with usage. */
function encodedStream(format: FormatId, deltas: number, texts: (index: number) => string): string {
  const encoder = wireFormats[format].stream.createEncoder({ model: 'm', requestId: 'req_1', includeUsage: true });
  const parts: StreamPart[] = [{ type: 'start', id: 'answer-1', model: 'm', created: 1_760_000_000 }];
  for (let index = 0; index < deltas; index++) parts.push({ type: 'text-delta', text: texts(index) });
  parts.push({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: { inputTokens: 30, outputTokens: deltas } });
  return parts.map((part) => encoder.push(part)).join('');
}

/** The role chunk, `deltas` content chunks, the finish chunk, the usage chunk, [DONE]. */
function chatStream(deltas: number, texts: (index: number) => string = (index) => `word${index} `): string {
  return encodedStream('chat-completions', deltas, texts);
}

/** message_start, a text block (its start, `deltas` deltas, its stop), message_delta, message_stop. */
function messagesStream(deltas: number, texts: (index: number) => string = (index) => `word${index} `): string {
  return encodedStream('messages', deltas, texts);
}

interface Relayed {
  out: string;
  events: number;
  skipped: number;
  /** Events read without the parser, relayed as their bytes. */
  direct: number;
  finished: boolean;
  usage: unknown;
  error: string | undefined;
  errorMessage: string | undefined;
}

/**
 * How a stream is read: by the reader beside its monitor (`runs`, a watched stream), by the
 * reader without one (`alone`, a stream whose answer is decoded), or every event by the parser.
 */
type Reading = 'runs' | 'alone' | 'parser';

/** Relays `text` of `format` cut at `cuts` as the router does, read as `reading` says. */
function relay(format: FormatId, text: string, cuts: number[], reading: Reading, stopAt?: string): Relayed {
  const monitor = wireFormats[format].stream.createRelayMonitor();
  const result: Relayed = { out: '', events: 0, skipped: 0, direct: 0, finished: false, usage: undefined, error: undefined, errorMessage: undefined };
  const onEvent = (event: SseEvent, bytes?: Buffer) => {
    monitor.push(event);
    result.events++;
    if (bytes !== undefined) {
      result.direct++;
      expect([event], 'an event read alone is what the parser reads of its bytes').toEqual(parsed(bytes));
    }
    if (stopAt === undefined || !event.data.includes(stopAt)) result.out += bytes?.toString() ?? formatSseEvent(event.data, event.event);
  };
  const parser = createSseParser(onEvent);
  const read =
    reading === 'parser'
      ? (chunk: Buffer) => parser.push(chunk)
      : createSkippingReader(parser, reading === 'runs' ? monitor : undefined, {
          run(source, from, to, events) {
            result.out += source.toString('utf8', from, to);
            result.events += events;
            result.skipped += events;
          },
          event: (event, source, from, to) => onEvent(event, source.subarray(from, to)),
        });
  const bytes = Buffer.from(text);
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    read(bytes.subarray(from, cut));
    from = cut;
  }
  parser.end();
  const ended: GatewayError | undefined = monitor.end();
  result.finished = monitor.finished;
  result.usage = monitor.usage;
  result.error = (monitor.error ?? ended)?.kind;
  result.errorMessage = (monitor.error ?? ended)?.message;
  return result;
}

function parsed(bytes: Buffer): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createSseParser((event) => events.push(event));
  parser.push(bytes);
  parser.end();
  return events;
}

/** The events of an LF-framed stream, without their blank lines, and back. */
const split = (text: string) => text.split('\n\n').slice(0, -1);
const join = (events: string[]) => `${events.join('\n\n')}\n\n`;
/** How many events a stream holds, LF- or CRLF-framed. */
const eventsOf = (text: string) => text.split(/\r?\n\r?\n/).length - 1;

/** `rounds` sets of one to six distinct cuts inside `bytes`, the same every run. */
function randomCuts(bytes: number, rounds: number): number[][] {
  let seed = 7;
  const random = (below: number) => (seed = (seed * 48_271) % 2_147_483_647) % below;
  return Array.from({ length: rounds }, () => [...new Set(Array.from({ length: 1 + random(6) }, () => 1 + random(bytes - 1)))].sort((a, b) => a - b));
}

function expectSameAsParsingAll(text: string, cuts: number[], stopAt?: string, format: FormatId = 'chat-completions', reading: Reading = 'runs'): Relayed {
  const skipping = relay(format, text, cuts, reading, stopAt);
  const { skipped: _skipped, direct: _direct, out: referenceOut, ...reference } = relay(format, text, cuts, 'parser', stopAt);
  const { skipped, direct, out, ...rest } = skipping;
  // What a client reads: CRLF-framed events go out as they came, where the parser's relay re-frames them with LF.
  expect({ ...rest, relayed: parsed(Buffer.from(out)) }, `cut at ${cuts.join(', ')}`).toEqual({ ...reference, relayed: parsed(Buffer.from(referenceOut)) });
  if (!text.includes('\r')) expect(out).toBe(referenceOut);
  return { ...rest, out, skipped, direct };
}

describe('createSkippingReader', () => {
  it('should relay a stream read whole with its content events unparsed, the rest as parsing every event does', () => {
    const text = chatStream(50);
    const relayed = expectSameAsParsingAll(text, []);
    expect(relayed.out).toBe(text);
    expect(relayed.finished).toBe(true);
    // Everything between the role chunk and the finish chunk.
    expect(relayed.skipped).toBe(50);
    // The role, finish and usage chunks and [DONE]: read alone, not by the parser.
    expect(relayed.direct).toBe(4);
  });

  it('should hand the monitor a plain event read alone decoded as UTF-8, and relay its bytes as they came', () => {
    const [first, ...others] = chatStream(4, (index) => `ø€${index}🚂 `).split('\n\n');
    const failure = 'data: {"error":{"message":"Überlastet: bitte später 🚂","type":"server_error"}}';
    const text = [first, ...others.slice(0, 2), failure, ...others.slice(2)].join('\n\n');
    const relayed = expectSameAsParsingAll(text, []);
    expect(relayed.errorMessage).toContain('Überlastet: bitte später 🚂');
    expect(relayed.out).toBe(text);
    expect(relayed.direct).toBeGreaterThanOrEqual(2);
  });

  it('should drop the usage chunk the client did not ask for, as parsing every event does', () => {
    const text = chatStream(20);
    const relayed = expectSameAsParsingAll(text, [], USAGE_CHUNK);
    expect(relayed.out).not.toContain(USAGE_CHUNK);
    expect(relayed.skipped).toBe(20);
  });

  it('should agree with parsing every event wherever the reads are cut, inside characters and events included', () => {
    const text = chatStream(6, (index) => `ø€${index}🚂 `);
    const bytes = Buffer.byteLength(text);
    for (let cut = 1; cut < bytes; cut++) expectSameAsParsingAll(text, [cut], USAGE_CHUNK);
    for (const cuts of randomCuts(bytes, 200)) expectSameAsParsingAll(text, cuts);
  });

  it('should leave to the parser what is not a plain content chunk, wherever the reads are cut: CRLF line ends, two data lines, event and id lines, comments, text that is not an object, a chunk without a choice', () => {
    const text = chatStream(5);
    const [first, ...others] = text.split('\n\n');
    const variants = [
      text.replaceAll('\n', '\r\n'),
      [first, ...others.map((event, index) => (index === 2 ? `id: 7\n${event}` : event))].join('\n\n'),
      [first, ': a comment', ...others].join('\n\n'),
      [first, 'event: error\ndata: {"error":{"message":"overloaded","type":"server_error"}}', ...others].join('\n\n'),
      [first, 'data: not json', ...others].join('\n\n'),
      [first, 'data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\ndata: {"b":2}', ...others].join('\n\n'),
      [first, ...others.slice(0, 2), 'data: {"object":"chat.completion.chunk","choices":[]}', ...others.slice(2)].join('\n\n'),
    ];
    for (const variant of variants) {
      expectSameAsParsingAll(variant, [], USAGE_CHUNK);
      for (let cut = 1; cut < variant.length; cut++) expectSameAsParsingAll(variant, [cut], USAGE_CHUNK);
    }
  });

  it('should not be fooled by a watched key quoted in content', () => {
    const text = chatStream(8, (index) => (index === 4 ? 'the "usage": 5 key' : `w${index} `));
    expect(expectSameAsParsingAll(text, []).skipped).toBe(8);
  });

  it('should end a run at an event that carries a watched key (usage on a content chunk), and read it', () => {
    const [first, ...others] = chatStream(8).split('\n\n');
    const withUsage = JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    });
    const text = [first, ...others.slice(0, 3), `data: ${withUsage}`, ...others.slice(3)].join('\n\n');
    // The eight plain deltas around it are skipped; the one with usage is read.
    expect(expectSameAsParsingAll(text, []).skipped).toBe(8);
  });

  describe('a messages stream', () => {

    it('should relay it read whole with its content events and pings unparsed, the rest read alone, as parsing every event does', () => {
      const [start, ...rest] = split(messagesStream(50));
      const text = join([start as string, 'event: ping\ndata: {"type": "ping"}', ...rest]);
      const relayed = expectSameAsParsingAll(text, [], undefined, 'messages');
      expect(relayed.out).toBe(text);
      expect(relayed.finished).toBe(true);
      expect(relayed.usage).toMatchObject({ inputTokens: 30, outputTokens: 50 });
      // The ping, the block's start, its 50 deltas and its stop.
      expect(relayed.skipped).toBe(53);
      // message_start, message_delta and message_stop: named events read alone, not by the parser.
      expect(relayed.direct).toBe(3);
    });

    it('should agree with parsing every event wherever the reads are cut, inside characters and events included', () => {
      const text = messagesStream(5, (index) => `ø€${index}🚂 `);
      const bytes = Buffer.byteLength(text);
      for (let cut = 1; cut < bytes; cut++) expectSameAsParsingAll(text, [cut], undefined, 'messages');
    });

    it('should leave to the parser, or read alone, what it must not skip, wherever the reads are cut', () => {
      const [start, ...rest] = split(messagesStream(4, (index) => (index === 2 ? '{"type":"message_stop"} and "usage" quoted' : `w${index} `)));
      const around = (...events: string[]) => join([start as string, ...rest.slice(0, 3), ...events, ...rest.slice(3)]);
      const variants = [
        messagesStream(4).replaceAll('\n', '\r\n'),
        around('id: 7\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}'),
        around(': a comment'),
        around('event: ping\ndata: not json'),
        around('event:\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}'),
        around('event: content_block_delta'),
        around('event: content_block_delta\ndata: {"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}'),
        around('event: content_block_delta\ndata: {"type":"content_block_delta","index":0}\ndata: {"type":"message_stop"}'),
        around('event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"'),
        around('event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Überlastet 🚂"}}'),
        around('event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}'),
        join([start as string, ...rest.map((event) => event.replace('data: {', 'data: {\n'))]),
      ];
      for (const variant of variants) {
        expectSameAsParsingAll(variant, [], undefined, 'messages');
        for (let cut = 1; cut < variant.length; cut++) expectSameAsParsingAll(variant, [cut], undefined, 'messages');
      }
      expect(expectSameAsParsingAll(variants[9] as string, [], undefined, 'messages').errorMessage).toContain('Überlastet 🚂');
    });
  });

  describe('a Responses stream', () => {

    it('should relay it read whole with every event but the terminal one unparsed, as parsing every event does', () => {
      const text = encodedStream('responses', 50, (index) => `word${index} `);
      const relayed = expectSameAsParsingAll(text, [], undefined, 'responses');
      expect(relayed.out).toBe(text);
      expect(relayed.finished).toBe(true);
      expect(relayed.usage).toMatchObject({ inputTokens: 30, outputTokens: 50 });
      // response.completed alone is read, without the parser.
      expect(relayed.skipped).toBe(eventsOf(text) - 1);
      expect(relayed.direct).toBe(1);
    });

    it('should read every event alone, as its bytes, where the answer is decoded (no monitor, no runs), wherever the reads are cut', () => {
      const text = encodedStream('responses', 6, (index) => `ø€${index}🚂 `);
      const relayed = expectSameAsParsingAll(text, [], undefined, 'responses', 'alone');
      expect(relayed.out).toBe(text);
      expect(relayed.skipped).toBe(0);
      expect(relayed.direct).toBe(eventsOf(text));
      for (let cut = 1; cut < Buffer.byteLength(text); cut++) expectSameAsParsingAll(text, [cut], undefined, 'responses', 'alone');
    });

    it('should leave to the parser, or read alone, what it must not skip, wherever the reads are cut', () => {
      const lines = split(encodedStream('responses', 4, (index) => (index === 2 ? '{"type":"response.completed"} quoted' : `w${index} `)));
      const around = (...inserted: string[]) => join([...lines.slice(0, 4), ...inserted, ...lines.slice(4)]);
      const variants = [
        around('event: response.output_text.delta\ndata: {"sequence_number":9,"type":"response.completed","response":{"usage":{"input_tokens":3,"output_tokens":4}}}'),
        around('event: response.output_text.delta\ndata: {"type":"response.complet\\u0065d","response":{"usage":{"input_tokens":3,"output_tokens":4}}}'),
        around('event: error\ndata: {"type":"error","code":"server_error","message":"Überlastet 🚂"}'),
        around('event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"x"'),
        around('event: response.output_text.delta\ndata: {"type":"response.output_text.delta",\ndata: "delta":"x"}'),
        around('event: response.failed\ndata: {"type":"response.failed","response":{"error":{"code":"rate_limit_exceeded","message":"Too fast."}}}'),
      ];
      for (const variant of variants) {
        expectSameAsParsingAll(variant, [], undefined, 'responses');
        for (let cut = 1; cut < variant.length; cut++) expectSameAsParsingAll(variant, [cut], undefined, 'responses');
      }
    });
  });

  describe('CRLF framing (how Google frames generate-content streams)', () => {
    const crlf = (text: string) => text.replaceAll('\n', '\r\n');

    it('should relay a chat stream read whole event by event, each read alone and as its bytes', () => {
      const text = crlf(chatStream(20));
      const relayed = expectSameAsParsingAll(text, []);
      expect(relayed.out).toBe(text);
      expect(relayed.finished).toBe(true);
      expect(relayed.direct).toBe(eventsOf(text));
    });

    it('should relay a generate-content stream as its bytes, read whole and one event per read', () => {
      const text = crlf(encodedStream('generate-content', 20, (index) => `ø€${index}🚂 `));
      const whole = expectSameAsParsingAll(text, [], undefined, 'generate-content');
      expect(whole.out).toBe(text);
      expect(whole.finished).toBe(true);
      expect(whole.usage).toMatchObject({ inputTokens: 30, outputTokens: 20 });
      expect(whole.direct).toBe(eventsOf(text));
      const boundaries: number[] = [];
      for (let at = text.indexOf('\r\n\r\n'); at >= 0; at = text.indexOf('\r\n\r\n', at + 1)) boundaries.push(Buffer.byteLength(text.slice(0, at + 4)));
      expect(expectSameAsParsingAll(text, boundaries.slice(0, -1), undefined, 'generate-content').direct).toBe(eventsOf(text));
      // A read that ends inside the first event sends the rest of it to the parser; the next read starts afresh.
      const inFirst = Math.floor((boundaries[0] as number) / 2);
      expect(expectSameAsParsingAll(text, [inFirst, ...boundaries.slice(0, -1)], undefined, 'generate-content').direct).toBe(eventsOf(text) - 1);
    });

    it('should agree with parsing every event wherever the reads are cut, for LF and CRLF, odd events included', () => {
      const lf = encodedStream('generate-content', 4, (index) => `ø€${index}🚂 `);
      const [first, ...rest] = lf.split('\n\n');
      const variants = [
        lf,
        crlf(lf),
        crlf([first, 'data: not json', ...rest].join('\n\n')),
        crlf([first, 'data: {"a":1}\ndata: {"b":2}', ...rest].join('\n\n')),
        crlf([first, ': a comment', 'data:', ...rest].join('\n\n')),
        [first, ...rest].join('\r\n\r\n').replace('"candidates"', '"candidates"\r'),
        lf.replace('"candidates"', '"candidates"\r'),
        [first, 'data: {"a":1}\ndata: {"b":2}', ...rest].join('\r\n\r\n'),
        crlf([first, 'data: {"error":{"code":503,"message":"Überlastet 🚂","status":"UNAVAILABLE"}}', ...rest].join('\n\n')),
        [first, ...rest].join('\r\r'),
        [first, ...rest].join('\n\r\n'),
      ];
      for (const variant of variants) {
        const bytes = Buffer.byteLength(variant);
        expectSameAsParsingAll(variant, [], undefined, 'generate-content');
        for (let cut = 1; cut < bytes; cut++) expectSameAsParsingAll(variant, [cut], undefined, 'generate-content');
        // Several cuts: a read that ends inside an event, then reads that end on a blank line or not.
        for (const cuts of randomCuts(bytes, 100)) expectSameAsParsingAll(variant, cuts, undefined, 'generate-content');
      }
    });
  });
});
