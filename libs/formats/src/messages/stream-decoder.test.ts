import type { StreamPart } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { parseSse, readFixture } from './__fixtures__/read-fixture.ts';
import { createStreamDecoder } from './stream-decoder.ts';

function decode(text: string): StreamPart[] {
  const decoder = createStreamDecoder();
  const parts = parseSse(text).flatMap((event) => decoder.push(event));
  return [...parts, ...decoder.end()];
}

/** `created` is the decode time; everything else is fixed by the capture. */
function withoutCreated(parts: StreamPart[]): unknown[] {
  return parts.map((part) => (part.type === 'start' ? { ...part, created: 0 } : part));
}

function event(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

const MESSAGE_START = event('message_start', {
  message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], usage: { input_tokens: 5, output_tokens: 1 } },
});

describe('createStreamDecoder', () => {
  it('should replay a text stream with cached input usage and skip the ping', () => {
    expect(withoutCreated(decode(readFixture('text.chunks.txt')))).toEqual([
      {
        type: 'start',
        id: 'msg_01TXT',
        model: 'claude-sonnet-4-5',
        created: 0,
        usage: { inputTokens: 1049, cacheReadTokens: 1024, cacheWriteTokens: 0 },
      },
      { type: 'text-delta', text: 'Cold' },
      { type: 'text-delta', text: ' and clear in Oslo.' },
      {
        type: 'finish',
        finishReason: { unified: 'stop', raw: 'end_turn' },
        usage: { inputTokens: 1049, outputTokens: 9, cacheReadTokens: 1024, cacheWriteTokens: 0 },
      },
    ]);
  });

  it('should number tool calls by ordinal, not block index, and skip empty fragments', () => {
    expect(withoutCreated(decode(readFixture('tool-use.chunks.txt'))).slice(1)).toEqual([
      { type: 'text-delta', text: 'Let me check both.' },
      { type: 'tool-call-start', index: 0, id: 'toolu_01A', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city": "Os' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: 'lo"}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'tool-call-start', index: 1, id: 'toolu_01B', name: 'get_weather' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"city": "Bergen"}' },
      { type: 'tool-call-end', index: 1 },
      {
        type: 'finish',
        finishReason: { unified: 'tool-calls', raw: 'tool_use' },
        usage: { inputTokens: 410, outputTokens: 52, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
    ]);
  });

  it('should stream thinking and end it with the messages signature', () => {
    expect(withoutCreated(decode(readFixture('thinking.chunks.txt'))).slice(1, -1)).toEqual([
      { type: 'reasoning-delta', text: 'The user wants a number.' },
      { type: 'reasoning-delta', text: ' 6 times 7 is 42.' },
      { type: 'reasoning-end', signature: { origin: 'messages', value: 'EqQBCkYIBxgCKkBsig01' } },
      { type: 'text-delta', text: '42' },
    ]);
  });

  it('should end a redacted_thinking block with its data', () => {
    const parts = decode(
      MESSAGE_START +
        event('content_block_start', { index: 0, content_block: { type: 'redacted_thinking', data: 'EmwK' } }) +
        event('content_block_stop', { index: 0 }) +
        event('message_stop', {}),
    );
    expect(parts.slice(1, -1)).toEqual([{ type: 'reasoning-end', redactedData: 'EmwK' }]);
  });

  it('should keep the stop sequence and take cumulative usage from message_delta, ignoring nulls', () => {
    const parts = decode(
      event('message_start', {
        message: { id: 'msg_1', model: 'm', usage: { input_tokens: 5, cache_creation_input_tokens: 2, cache_read_input_tokens: 3, output_tokens: 1 } },
      }) +
        event('message_delta', {
          delta: { stop_reason: 'stop_sequence', stop_sequence: 'END' },
          usage: { output_tokens: 7, input_tokens: null, cache_creation_input_tokens: null, cache_read_input_tokens: null },
        }) +
        event('message_stop', {}),
    );
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'stop_sequence', stopSequence: 'END' },
      usage: { inputTokens: 10, outputTokens: 7, cacheReadTokens: 3, cacheWriteTokens: 2 },
    });
  });

  it('should not report server-tool blocks as client tool calls', () => {
    const parts = decode(
      MESSAGE_START +
        event('content_block_start', { index: 0, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } }) +
        event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":"x"}' } }) +
        event('content_block_stop', { index: 0 }) +
        event('message_stop', {}),
    );
    expect(parts.map((part) => part.type)).toEqual(['start', 'finish']);
  });

  it('should turn an error event into an error part and ignore what follows', () => {
    const parts = decode(
      MESSAGE_START +
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n' +
        event('message_stop', {}),
    );
    const last = parts.at(-1);
    expect(parts.length).toBe(2);
    expect(last?.type === 'error' && [last.error.kind, last.error.message, last.error.upstreamType]).toEqual([
      'overloaded',
      'Overloaded',
      'overloaded_error',
    ]);
  });

  it('should report a stream that ends before message_stop', () => {
    const parts = decode(MESSAGE_START + event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
    const last = parts.at(-1);
    expect(last?.type === 'error' && last.error.kind).toBe('upstream_error');
  });

  it('should mark usage as estimated when the upstream sent none', () => {
    const parts = decode(event('message_start', { message: { id: 'msg_1', model: 'm' } }) + event('message_stop', {}));
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: { unified: 'other' }, usage: { inputTokens: 0, outputTokens: 0, estimated: true } });
  });
});
