import Anthropic from '@anthropic-ai/sdk';
import { GatewayError, type StreamPart } from '@switchyard/canonical';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapToolCallId } from '../shared/index.ts';
import { parseSse, readFixture } from './__fixtures__/read-fixture.ts';
import { createStreamDecoder } from './stream-decoder.ts';
import { createStreamEncoder } from './stream-encoder.ts';

const CONTEXT = { model: 'client-model', requestId: 'req_1' };

function encode(parts: StreamPart[]): string {
  const encoder = createStreamEncoder(CONTEXT);
  return parts.map((part) => encoder.push(part)).join('');
}

function sse(type: string, data: string): string {
  return `event: ${type}\ndata: ${data}\n\n`;
}

const START: StreamPart = { type: 'start', id: 'chatcmpl-1', model: 'gpt-x', created: 1 };
const MESSAGE_START = sse(
  'message_start',
  '{"type":"message_start","message":{"id":"msg_chatcmpl-1","type":"message","role":"assistant","model":"client-model","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}}}',
);
const MESSAGE_STOP = sse('message_stop', '{"type":"message_stop"}');

describe('createStreamEncoder', () => {
  it('should write a text stream byte for byte, opening the block on the first non-empty delta', () => {
    expect(
      encode([
        START,
        { type: 'text-delta', text: '' },
        { type: 'text-delta', text: 'Hi' },
        { type: 'text-delta', text: ' "there"' },
        { type: 'finish', finishReason: { unified: 'stop' }, usage: { inputTokens: 1040, outputTokens: 3, cacheReadTokens: 1024 } },
      ]),
    ).toBe(
      MESSAGE_START +
        sse('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}') +
        sse('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}') +
        sse('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" \\"there\\""}}') +
        sse('content_block_stop', '{"type":"content_block_stop","index":0}') +
        sse(
          'message_delta',
          '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3,"input_tokens":16,"cache_creation_input_tokens":0,"cache_read_input_tokens":1024}}',
        ) +
        MESSAGE_STOP,
    );
  });

  it('should put input counts known at start into message_start', () => {
    const out = encode([{ ...START, usage: { inputTokens: 30, cacheWriteTokens: 10 } }]);
    expect(out).toContain('"usage":{"input_tokens":20,"cache_creation_input_tokens":10,"cache_read_input_tokens":0,"output_tokens":0}');
  });

  it('should write tool calls as tool_use blocks with mapped ids, closing the text block first', () => {
    expect(
      encode([
        START,
        { type: 'text-delta', text: 'Checking.' },
        { type: 'tool-call-start', index: 0, id: 'call:1', name: 'get_weather' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '"Oslo"}' },
        { type: 'tool-call-end', index: 0 },
        { type: 'tool-call-start', index: 1, id: 'call_2', name: 'get_time' },
        { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: { inputTokens: 5, outputTokens: 7 } },
      ]),
    ).toBe(
      MESSAGE_START +
        sse('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}') +
        sse('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking."}}') +
        sse('content_block_stop', '{"type":"content_block_stop","index":0}') +
        sse(
          'content_block_start',
          `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"${mapToolCallId('call:1')}","name":"get_weather","input":{}}}`,
        ) +
        sse('content_block_delta', '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\":"}}') +
        sse('content_block_delta', '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\\"Oslo\\"}"}}') +
        sse('content_block_stop', '{"type":"content_block_stop","index":1}') +
        sse('content_block_start', '{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"call_2","name":"get_time","input":{}}}') +
        sse('content_block_stop', '{"type":"content_block_stop","index":2}') +
        sse(
          'message_delta',
          '{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":7,"input_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}',
        ) +
        MESSAGE_STOP,
    );
  });

  it('should write signed thinking as one thinking block once its signature arrives', () => {
    expect(
      encode([
        START,
        { type: 'reasoning-delta', text: 'Six times seven.' },
        { type: 'reasoning-delta', text: ' 42.' },
        { type: 'reasoning-end', signature: { origin: 'messages', value: 'sig' } },
        { type: 'text-delta', text: '42' },
      ]),
    ).toBe(
      MESSAGE_START +
        sse('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}') +
        sse('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Six times seven."}}') +
        sse('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" 42."}}') +
        sse('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}') +
        sse('content_block_stop', '{"type":"content_block_stop","index":0}') +
        sse('content_block_start', '{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}') +
        sse('content_block_delta', '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"42"}}'),
    );
  });

  it('should write redacted thinking as a closed redacted_thinking block', () => {
    expect(encode([START, { type: 'reasoning-end', redactedData: 'EmwK' }])).toBe(
      MESSAGE_START +
        sse('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwK"}}') +
        sse('content_block_stop', '{"type":"content_block_stop","index":0}'),
    );
  });

  it('should drop reasoning without a messages signature, with or without a reasoning-end', () => {
    expect(
      encode([
        START,
        { type: 'reasoning-delta', text: 'summary' },
        { type: 'reasoning-end', signature: { origin: 'responses', value: 'gAAA' } },
        { type: 'reasoning-delta', text: 'thought' },
        { type: 'text-delta', text: 'A' },
        { type: 'reasoning-end', signature: { origin: 'messages', value: 'late' } },
      ]),
    ).toBe(
      MESSAGE_START +
        sse('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}') +
        sse('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"A"}}') +
        sse('content_block_stop', '{"type":"content_block_stop","index":0}') +
        sse('content_block_start', '{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":"","signature":""}}') +
        sse('content_block_delta', '{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"late"}}') +
        sse('content_block_stop', '{"type":"content_block_stop","index":1}'),
    );
  });

  it('should end with an error event and write nothing after it', () => {
    const encoder = createStreamEncoder(CONTEXT);
    const written = [
      encoder.push(START),
      encoder.push({ type: 'text-delta', text: 'Hi' }),
      encoder.push({ type: 'error', error: new GatewayError('overloaded', 'Overloaded') }),
      encoder.push({ type: 'finish', finishReason: { unified: 'stop' }, usage: { inputTokens: 0, outputTokens: 0 } }),
    ];
    expect(written.slice(2)).toEqual([
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      '',
    ]);
  });

  it('should write message_start even when the decoder sent no start', () => {
    expect(encode([{ type: 'finish', finishReason: { unified: 'length' }, usage: { inputTokens: 0, outputTokens: 0 } }])).toBe(
      sse(
        'message_start',
        '{"type":"message_start","message":{"id":"msg_req_1","type":"message","role":"assistant","model":"client-model","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}}}',
      ) +
        sse(
          'message_delta',
          '{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":0,"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}',
        ) +
        MESSAGE_STOP,
    );
  });
});

/** The vendor's events minus what the translation legitimately drops: pings and empty JSON fragments. */
interface BlockEvent {
  type: string;
  index?: number;
  content_block?: unknown;
  delta?: { type?: string; partial_json?: string };
}

function significantEvents(text: string): BlockEvent[] {
  return parseSse(text)
    .map((event) => JSON.parse(event.data) as BlockEvent)
    .filter((event) => event.type !== 'ping' && !(event.delta?.type === 'input_json_delta' && event.delta.partial_json === ''))
    .map(({ type, index, content_block, delta }) => ({ type, index, content_block, delta }));
}

function roundTrip(fixture: string): string {
  const decoder = createStreamDecoder();
  const encoder = createStreamEncoder({ model: 'claude-sonnet-4-5', requestId: 'req_1' });
  return parseSse(readFixture(fixture))
    .flatMap((event) => decoder.push(event))
    .map((part) => encoder.push(part))
    .join('');
}

describe('decode → encode', () => {
  for (const fixture of ['text.chunks.txt', 'tool-use.chunks.txt', 'thinking.chunks.txt']) {
    it(`should reproduce the block events of ${fixture} with contiguous indices`, () => {
      const reproduced = roundTrip(fixture);
      expect(significantEvents(reproduced)).toEqual(significantEvents(readFixture(fixture)));
      expect(parseSse(reproduced).every((event) => event.event === (JSON.parse(event.data) as { type: string }).type)).toBe(true);
    });
  }
});

describe('@anthropic-ai/sdk reading the encoder output', () => {
  it('should accumulate text, thinking and tool_use into the final message', async () => {
    const body = encode([
      { ...START, usage: { inputTokens: 12 } },
      { type: 'reasoning-delta', text: 'Think.' },
      { type: 'reasoning-end', signature: { origin: 'messages', value: 'sig' } },
      { type: 'text-delta', text: 'Checking.' },
      { type: 'tool-call-start', index: 0, id: 'call_1', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":"Oslo"}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'finish', finishReason: { unified: 'tool-calls' }, usage: { inputTokens: 12, outputTokens: 9 } },
    ]);
    const client = new Anthropic({
      apiKey: 'test',
      baseURL: 'http://switchyard.test',
      fetch: async () => new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
    });
    const message = await client.messages.stream({ model: 'client-model', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] }).finalMessage();
    expect([message.id, message.stop_reason, message.usage.input_tokens, message.usage.output_tokens]).toEqual([
      'msg_chatcmpl-1',
      'tool_use',
      12,
      9,
    ]);
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Think.', signature: 'sig' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Oslo' } },
    ]);
  });

  it('should surface the error event as an API error', async () => {
    const body = encode([START, { type: 'error', error: new GatewayError('overloaded', 'Overloaded') }]);
    const client = new Anthropic({
      apiKey: 'test',
      baseURL: 'http://switchyard.test',
      maxRetries: 0,
      fetch: async () => new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
    });
    const stream = client.messages.stream({ model: 'client-model', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] });
    await expect(stream.finalMessage()).rejects.toMatchObject({ type: 'overloaded_error' });
  });
});

/** Any well-formed canonical stream: start, then text, reasoning and whole tool calls in any order, then an end. */
const partsArbitrary = fc
  .tuple(
    fc.array(
      fc.oneof(
        fc.string().map((text): StreamPart[] => [{ type: 'text-delta', text }]),
        fc
          .tuple(fc.array(fc.string({ minLength: 1 }), { maxLength: 3 }), fc.constantFrom('messages', 'responses', 'redacted', 'none'))
          .map(([texts, origin]): StreamPart[] => [
            ...texts.map((text): StreamPart => ({ type: 'reasoning-delta', text })),
            origin === 'redacted'
              ? { type: 'reasoning-end', redactedData: 'EmwK' }
              : origin === 'none'
                ? { type: 'reasoning-end' }
                : { type: 'reasoning-end', signature: { origin, value: 'sig' } },
          ]),
        fc.array(fc.string(), { maxLength: 3 }).map((fragments): StreamPart[] => [
          { type: 'tool-call-start', index: -1, id: 'call_1', name: 'f' },
          ...fragments.map((argumentsDelta): StreamPart => ({ type: 'tool-call-delta', index: -1, argumentsDelta })),
          { type: 'tool-call-end', index: -1 },
        ]),
      ),
      { maxLength: 8 },
    ),
    fc.boolean(),
  )
  .map(([groups, failed]) => {
    let ordinal = 0;
    const body = groups.map((group) => {
      const index = group[0]?.type === 'tool-call-start' ? ordinal++ : -1;
      return group.map((part) => ('index' in part && part.index === -1 ? { ...part, index } : part));
    });
    const end: StreamPart = failed
      ? { type: 'error', error: new GatewayError('upstream_error', 'Broken.') }
      : { type: 'finish', finishReason: { unified: 'stop' }, usage: { inputTokens: 1, outputTokens: 1 } };
    return [START, ...body.flat(), end];
  });

describe('createStreamEncoder invariants', () => {
  it('should keep one block open at a time at contiguous indices and end with message_stop or error', () => {
    fc.assert(
      fc.property(partsArbitrary, (parts) => {
        const events = parseSse(encode(parts)).map((event) => ({ name: event.event, data: JSON.parse(event.data) as BlockEvent }));
        let next = 0;
        let open: number | undefined;
        for (const { name, data } of events) {
          expect(name).toBe(data.type);
          if (data.type === 'content_block_start') {
            expect([open, data.index]).toEqual([undefined, next]);
            open = next++;
          } else if (data.type === 'content_block_delta') {
            expect(data.index).toBe(open);
          } else if (data.type === 'content_block_stop') {
            expect(data.index).toBe(open);
            open = undefined;
          } else if (data.type === 'message_delta') {
            expect(open).toBeUndefined();
          }
        }
        expect(events[0]?.data.type).toBe('message_start');
        expect(events.at(-1)?.data.type).toBe(parts.at(-1)?.type === 'error' ? 'error' : 'message_stop');
      }),
    );
  });
});
