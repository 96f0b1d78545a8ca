import { GatewayError, type CanonicalUsage, type StreamPart } from '@switchyard/canonical';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSse, readFixtureEvents } from './__fixtures__/read-fixture.ts';
import { createStreamDecoder } from './stream-decoder.ts';
import { createStreamEncoder } from './stream-encoder.ts';

const context = { model: 'fast-chat', requestId: 'req_1' };
const start: StreamPart = { type: 'start', id: 'chatcmpl-1', model: 'gpt-4o', created: 1767225600 };
const usage: CanonicalUsage = { inputTokens: 12, outputTokens: 3 };
const wireUsage = {
  input_tokens: 12,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 3,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 15,
};

function encodeAll(parts: StreamPart[]): string {
  const encoder = createStreamEncoder(context);
  return parts.map((part) => encoder.push(part)).join('');
}

/** Expected SSE, numbered in order: the test fixes every byte, key order included. */
function expectedStream(): { event: (type: string, fields: Record<string, unknown>) => string } {
  let sequence = 0;
  return {
    event: (type, fields) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`,
  };
}

function responseObject(status: string, output: unknown[], responseUsage: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'resp_1',
    object: 'response',
    created_at: 1767225600,
    status,
    model: 'fast-chat',
    error: null,
    incomplete_details: null,
    instructions: null,
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    temperature: null,
    top_p: null,
    text: { format: { type: 'text' } },
    reasoning: { effort: null, summary: null },
    usage: responseUsage,
    metadata: {},
    ...extra,
  };
}

function lifecycleStart(event: ReturnType<typeof expectedStream>['event']): string {
  const response = responseObject('in_progress', [], null);
  return event('response.created', { response }) + event('response.in_progress', { response });
}

function messageEvents(event: ReturnType<typeof expectedStream>['event'], id: string, outputIndex: number, deltas: string[]): { sse: string; item: unknown } {
  const text = deltas.join('');
  const location = { item_id: id, output_index: outputIndex, content_index: 0 };
  const item = { id, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
  const sse =
    event('response.output_item.added', { output_index: outputIndex, item: { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] } }) +
    event('response.content_part.added', { ...location, part: { type: 'output_text', text: '', annotations: [] } }) +
    deltas.map((delta) => event('response.output_text.delta', { ...location, delta, logprobs: [] })).join('') +
    event('response.output_text.done', { ...location, text, logprobs: [] }) +
    event('response.content_part.done', { ...location, part: { type: 'output_text', text, annotations: [] } }) +
    event('response.output_item.done', { output_index: outputIndex, item });
  return { sse, item };
}

describe('createStreamEncoder', () => {
  it('should encode a text answer byte for byte in the vendor order', () => {
    const { event } = expectedStream();
    const head = lifecycleStart(event);
    const message = messageEvents(event, 'msg_1_0', 0, ['Hi', '.']);
    const expected = head + message.sse + event('response.completed', { response: responseObject('completed', [message.item], wireUsage) });
    expect(
      encodeAll([
        start,
        { type: 'text-delta', text: 'Hi' },
        { type: 'text-delta', text: '.' },
        { type: 'finish', finishReason: { unified: 'stop' }, usage },
      ]),
    ).toBe(expected);
  });

  it('should encode two parallel function calls byte for byte', () => {
    const { event } = expectedStream();
    const call = (id: string, callId: string, args: string, status: string): Record<string, unknown> => ({
      type: 'function_call',
      id,
      call_id: callId,
      name: 'get_weather',
      arguments: args,
      status,
    });
    const first = call('fc_1_0', 'call_a', '{"city":"Oslo"}', 'completed');
    const second = call('fc_1_1', 'call_b', '{"city":"Bergen"}', 'completed');
    const expected =
      lifecycleStart(event) +
      event('response.output_item.added', { output_index: 0, item: call('fc_1_0', 'call_a', '', 'in_progress') }) +
      event('response.function_call_arguments.delta', { item_id: 'fc_1_0', output_index: 0, delta: '{"city":' }) +
      event('response.function_call_arguments.delta', { item_id: 'fc_1_0', output_index: 0, delta: '"Oslo"}' }) +
      event('response.function_call_arguments.done', { item_id: 'fc_1_0', output_index: 0, arguments: '{"city":"Oslo"}', name: 'get_weather' }) +
      event('response.output_item.done', { output_index: 0, item: first }) +
      event('response.output_item.added', { output_index: 1, item: call('fc_1_1', 'call_b', '', 'in_progress') }) +
      event('response.function_call_arguments.delta', { item_id: 'fc_1_1', output_index: 1, delta: '{"city":"Bergen"}' }) +
      event('response.function_call_arguments.done', { item_id: 'fc_1_1', output_index: 1, arguments: '{"city":"Bergen"}', name: 'get_weather' }) +
      event('response.output_item.done', { output_index: 1, item: second }) +
      event('response.completed', { response: responseObject('completed', [first, second], wireUsage) });
    expect(
      encodeAll([
        start,
        { type: 'tool-call-start', index: 0, id: 'call_a', name: 'get_weather' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '"Oslo"}' },
        { type: 'tool-call-end', index: 0 },
        { type: 'tool-call-start', index: 1, id: 'call_b', name: 'get_weather' },
        { type: 'tool-call-delta', index: 1, argumentsDelta: '{"city":"Bergen"}' },
        { type: 'tool-call-end', index: 1 },
        { type: 'finish', finishReason: { unified: 'tool-calls' }, usage },
      ]),
    ).toBe(expected);
  });

  it('should encode reasoning then text byte for byte, with a Responses signature as encrypted_content', () => {
    const { event } = expectedStream();
    const location = { item_id: 'rs_1_0', output_index: 0, summary_index: 0 };
    const reasoning = { type: 'reasoning', id: 'rs_1_0', summary: [{ type: 'summary_text', text: 'Need a lookup.' }], encrypted_content: 'gAAA' };
    const head =
      lifecycleStart(event) +
      event('response.output_item.added', { output_index: 0, item: { type: 'reasoning', id: 'rs_1_0', summary: [] } }) +
      event('response.reasoning_summary_part.added', { ...location, part: { type: 'summary_text', text: '' } }) +
      event('response.reasoning_summary_text.delta', { ...location, delta: 'Need ' }) +
      event('response.reasoning_summary_text.delta', { ...location, delta: 'a lookup.' }) +
      event('response.reasoning_summary_text.done', { ...location, text: 'Need a lookup.' }) +
      event('response.reasoning_summary_part.done', { ...location, part: { type: 'summary_text', text: 'Need a lookup.' } }) +
      event('response.output_item.done', { output_index: 0, item: reasoning });
    const message = messageEvents(event, 'msg_1_1', 1, ['Sunny.']);
    const reasoningUsage = { ...usage, outputTokens: 30, reasoningTokens: 27, cacheReadTokens: 4 };
    const expected =
      head +
      message.sse +
      event('response.completed', {
        response: responseObject('completed', [reasoning, message.item], {
          input_tokens: 12,
          input_tokens_details: { cached_tokens: 4 },
          output_tokens: 30,
          output_tokens_details: { reasoning_tokens: 27 },
          total_tokens: 42,
        }),
      });
    expect(
      encodeAll([
        start,
        { type: 'reasoning-delta', text: 'Need ' },
        { type: 'reasoning-delta', text: 'a lookup.' },
        { type: 'reasoning-end', signature: { origin: 'responses', value: 'gAAA' } },
        { type: 'text-delta', text: 'Sunny.' },
        { type: 'finish', finishReason: { unified: 'stop' }, usage: reasoningUsage },
      ]),
    ).toBe(expected);
  });

  it('should end a length-limited answer with response.incomplete after closing the open message', () => {
    const { event } = expectedStream();
    const head = lifecycleStart(event);
    const message = messageEvents(event, 'msg_1_0', 0, ['Partial']);
    const expected =
      head +
      message.sse +
      event('response.incomplete', {
        response: responseObject('incomplete', [message.item], wireUsage, { incomplete_details: { reason: 'max_output_tokens' } }),
      });
    expect(
      encodeAll([start, { type: 'text-delta', text: 'Partial' }, { type: 'finish', finishReason: { unified: 'length' }, usage }]),
    ).toBe(expected);
  });

  it('should end with one error event and write nothing after it', () => {
    const { event } = expectedStream();
    const location = { item_id: 'msg_1_0', output_index: 0, content_index: 0 };
    const expected =
      lifecycleStart(event) +
      event('response.output_item.added', { output_index: 0, item: { id: 'msg_1_0', type: 'message', status: 'in_progress', role: 'assistant', content: [] } }) +
      event('response.content_part.added', { ...location, part: { type: 'output_text', text: '', annotations: [] } }) +
      event('response.output_text.delta', { ...location, delta: 'Hi', logprobs: [] });
    const encoder = createStreamEncoder(context);
    const written = [start, { type: 'text-delta', text: 'Hi' } as const].map((part) => encoder.push(part)).join('');
    expect(written).toBe(expected);
    expect(encoder.push({ type: 'error', error: new GatewayError('rate_limited', 'Slow down.') })).toBe(
      'event: error\ndata: {"type":"error","code":"rate_limit_exceeded","message":"Slow down.","param":null,"sequence_number":5}\n\n',
    );
    expect(encoder.push({ type: 'finish', finishReason: { unified: 'stop' }, usage })).toBe('');
  });

  it('should turn a refusal after text into a second content part of the same message', () => {
    const events = parseSse(
      encodeAll([
        start,
        { type: 'text-delta', text: 'Well' },
        { type: 'refusal-delta', text: 'I cannot.' },
        { type: 'finish', finishReason: { unified: 'content-filter' }, usage },
      ]),
    ).map((sse) => JSON.parse(sse.data) as Record<string, unknown>);
    expect(events.map((data) => [data['type'], data['content_index']])).toEqual([
      ['response.created', undefined],
      ['response.in_progress', undefined],
      ['response.output_item.added', undefined],
      ['response.content_part.added', 0],
      ['response.output_text.delta', 0],
      ['response.output_text.done', 0],
      ['response.content_part.done', 0],
      ['response.content_part.added', 1],
      ['response.refusal.delta', 1],
      ['response.refusal.done', 1],
      ['response.content_part.done', 1],
      ['response.output_item.done', undefined],
      ['response.incomplete', undefined],
    ]);
    expect(events.at(-1)?.['response']).toMatchObject({
      incomplete_details: { reason: 'content_filter' },
      output: [{ content: [{ type: 'output_text', text: 'Well' }, { type: 'refusal', refusal: 'I cannot.' }] }],
    });
  });

  it('should emit a reasoning item that carries only encrypted content, and arguments {} for a call without any', () => {
    const output = terminalResponse(
      encodeAll([
        start,
        { type: 'reasoning-end', signature: { origin: 'responses', value: 'gAAA' }, id: 'rs_up' },
        { type: 'reasoning-end', signature: { origin: 'messages', value: 'EqQB' } },
        { type: 'tool-call-start', index: 0, id: 'call_1', name: 'now' },
        { type: 'finish', finishReason: { unified: 'tool-calls' }, usage },
      ]),
    )['output'];
    expect(output).toEqual([
      { type: 'reasoning', id: 'rs_up', summary: [], encrypted_content: 'gAAA' },
      { type: 'reasoning', id: 'rs_1_1', summary: [] },
      { type: 'function_call', id: 'fc_1_2', call_id: 'call_1', name: 'now', arguments: '{}', status: 'completed' },
    ]);
  });

  it('should start the response itself when the first part is not start', () => {
    const events = parseSse(encodeAll([{ type: 'text-delta', text: 'Hi' }, { type: 'finish', finishReason: { unified: 'stop' }, usage }]));
    const ids = events.map((sse) => (JSON.parse(sse.data) as { response?: { id: string } }).response?.id).filter((id) => id !== undefined);
    expect(ids.length).toBe(3);
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toMatch(/^resp_[0-9a-f]{24}$/);
  });
});

function terminalResponse(sse: string): Record<string, unknown> {
  const last = parseSse(sse).at(-1);
  return (JSON.parse(last?.data ?? '{}') as { response: Record<string, unknown> }).response;
}

/** What the vendor's own stream and ours must agree on: event order, positions and text. */
function shape(sse: string): unknown[] {
  return parseSse(sse).map((event) => {
    const data = JSON.parse(event.data) as Record<string, unknown>;
    const item = data['item'] as { type?: string } | undefined;
    return [event.event, data['type'], data['sequence_number'], data['output_index'], data['content_index'], data['summary_index'], data['delta'], item?.type];
  });
}

describe('responses stream decode → encode', () => {
  it.each(['text.chunks.txt', 'function-calls.chunks.txt', 'reasoning.chunks.txt'])('should reproduce the vendor event sequence of %s', (name) => {
    const events = readFixtureEvents(name);
    const decoder = createStreamDecoder();
    const encoder = createStreamEncoder(context);
    const reencoded = events.flatMap((event) => decoder.push(event)).map((part) => encoder.push(part)).join('');
    const original = events.map((event) => `event: ${event.event}\ndata: ${event.data}\n\n`).join('');
    expect(shape(reencoded)).toEqual(shape(original));
  });
});

type Operation =
  | { kind: 'text' | 'refusal' | 'reasoning'; text: string }
  | { kind: 'reasoning-end' }
  | { kind: 'call-start' }
  | { kind: 'call-delta' | 'call-end'; pick: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constantFrom('text' as const, 'refusal' as const, 'reasoning' as const), text: fc.string({ minLength: 1, maxLength: 5 }) }),
  fc.constant({ kind: 'reasoning-end' as const }),
  fc.constant({ kind: 'call-start' as const }),
  fc.record({ kind: fc.constantFrom('call-delta' as const, 'call-end' as const), pick: fc.nat() }),
);

/** Random but contract-respecting part sequences: start, any mix, one finish. */
function toParts(operations: Operation[], unified: 'stop' | 'length'): StreamPart[] {
  const parts: StreamPart[] = [start];
  const open: number[] = [];
  let nextIndex = 0;
  for (const op of operations) {
    switch (op.kind) {
      case 'text':
        parts.push({ type: 'text-delta', text: op.text });
        break;
      case 'refusal':
        parts.push({ type: 'refusal-delta', text: op.text });
        break;
      case 'reasoning':
        parts.push({ type: 'reasoning-delta', text: op.text });
        break;
      case 'reasoning-end':
        parts.push({ type: 'reasoning-end' });
        break;
      case 'call-start':
        open.push(nextIndex);
        parts.push({ type: 'tool-call-start', index: nextIndex, id: `call_${nextIndex}`, name: 'f' });
        nextIndex += 1;
        break;
      case 'call-delta':
      case 'call-end': {
        if (open.length === 0) break;
        const position = op.pick % open.length;
        const index = open[position] ?? 0;
        if (op.kind === 'call-delta') parts.push({ type: 'tool-call-delta', index, argumentsDelta: '{}' });
        else {
          open.splice(position, 1);
          parts.push({ type: 'tool-call-end', index });
        }
      }
    }
  }
  parts.push({ type: 'finish', finishReason: { unified }, usage });
  return parts;
}

describe('responses stream encoder invariants', () => {
  it('should number events from 0, open each output index once and close every item before the terminal event', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 30 }), fc.constantFrom('stop' as const, 'length' as const), (operations, unified) => {
        const events = parseSse(encodeAll(toParts(operations, unified))).map((sse) => ({
          name: sse.event,
          data: JSON.parse(sse.data) as Record<string, unknown> & { response?: { id: string; output: unknown[] } },
        }));
        expect(events.map((event) => event.data['sequence_number'])).toEqual(events.map((_event, index) => index));
        expect(events.every((event) => event.name === event.data['type'])).toBe(true);
        const opened = events.filter((event) => event.name === 'response.output_item.added').map((event) => event.data['output_index']);
        const closed = events.filter((event) => event.name === 'response.output_item.done').map((event) => event.data['output_index']);
        expect(opened).toEqual(opened.map((_index, position) => position));
        expect([...closed].sort()).toEqual([...opened].sort());
        const terminal = events.at(-1);
        expect(terminal?.name).toBe(unified === 'stop' ? 'response.completed' : 'response.incomplete');
        expect(terminal?.data.response?.output.length).toBe(opened.length);
        expect(new Set(events.flatMap((event) => (event.data.response === undefined ? [] : [event.data.response.id]))).size).toBe(1);
      }),
      { numRuns: 200 },
    );
  });
});
