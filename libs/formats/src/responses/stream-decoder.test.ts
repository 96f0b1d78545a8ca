import type { StreamPart } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import { describe, expect, it } from 'vitest';
import { readFixtureEvents } from './__fixtures__/read-fixture.ts';
import { extractUsage } from './extract-usage.ts';
import { createStreamDecoder } from './stream-decoder.ts';

function decodeAll(events: SseEvent[]): StreamPart[] {
  const decoder = createStreamDecoder();
  return [...events.flatMap((event) => decoder.push(event)), ...decoder.end()];
}

function event(data: Record<string, unknown>): SseEvent {
  return { event: String(data['type']), data: JSON.stringify(data) };
}

const created = event({ type: 'response.created', sequence_number: 0, response: { id: 'resp_1', model: 'gpt-4.1', created_at: 1767225600, status: 'in_progress', output: [], usage: null } });
const start = { type: 'start', id: 'resp_1', model: 'gpt-4.1', created: 1767225600 };

function terminal(type: string, response: Record<string, unknown>): SseEvent {
  return event({ type, sequence_number: 99, response: { id: 'resp_1', output: [], usage: null, ...response } });
}

describe('createStreamDecoder', () => {
  it('should replay the text fixture as start, text deltas and finish', () => {
    expect(decodeAll(readFixtureEvents('text.chunks.txt'))).toEqual([
      { type: 'start', id: 'resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b', model: 'gpt-4.1-2025-04-14', created: 1767225600 },
      { type: 'text-delta', text: 'Hi' },
      { type: 'text-delta', text: ' there' },
      { type: 'text-delta', text: '.' },
      {
        type: 'finish',
        finishReason: { unified: 'stop', raw: 'completed' },
        usage: { inputTokens: 12, outputTokens: 3, cacheReadTokens: 0, reasoningTokens: 0 },
      },
    ]);
  });

  it('should replay two parallel function calls with call_id ids and ordinal indexes', () => {
    expect(decodeAll(readFixtureEvents('function-calls.chunks.txt'))).toEqual([
      { type: 'start', id: 'resp_68a1f0c2e7d48190a6d9b7c4f0e1a2b30c5d6e7f8a9b0c1d', model: 'gpt-4.1-2025-04-14', created: 1767225600 },
      { type: 'tool-call-start', index: 0, id: 'call_9f2Kq1', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '"Oslo"}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'tool-call-start', index: 1, id: 'call_4hT7xZ', name: 'get_weather' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"city":"Ber' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: 'gen"}' },
      { type: 'tool-call-end', index: 1 },
      {
        type: 'finish',
        finishReason: { unified: 'tool-calls', raw: 'completed' },
        usage: { inputTokens: 82, outputTokens: 36, cacheReadTokens: 0, reasoningTokens: 0 },
      },
    ]);
  });

  it('should replay reasoning with its encrypted content taken from output_item.done', () => {
    const rs = 'rs_6901a2b3d5e68190b2c3d4e5f6a7b8c9';
    const parts = decodeAll(readFixtureEvents('reasoning.chunks.txt'));
    expect(parts).toEqual([
      { type: 'start', id: 'resp_6901a2b3c4d58190a1b2c3d4e5f6a7b80d1e2f3a4b5c6d7e', model: 'o4-mini-2025-04-16', created: 1767225600 },
      { type: 'reasoning-delta', text: '**Planning the answer**\n\nThe user asks', id: rs },
      { type: 'reasoning-delta', text: ' for a haiku about rain.', id: rs },
      { type: 'reasoning-end', signature: { origin: 'responses', value: expect.stringMatching(/^gAAAAAB/) }, id: rs },
      { type: 'text-delta', text: 'Soft rain on the roof,\n' },
      { type: 'text-delta', text: 'slow drums for a sleeping town,\n' },
      { type: 'text-delta', text: 'puddles hold the sky.' },
      {
        type: 'finish',
        finishReason: { unified: 'stop', raw: 'completed' },
        usage: { inputTokens: 31, outputTokens: 210, cacheReadTokens: 12, reasoningTokens: 180 },
      },
    ]);
  });

  it('should separate summary parts with a blank line and read raw reasoning text and refusals', () => {
    const location = { item_id: 'rs_1', output_index: 0 };
    expect(
      decodeAll([
        created,
        event({ type: 'response.reasoning_summary_part.added', ...location, summary_index: 0, part: { type: 'summary_text', text: '' } }),
        event({ type: 'response.reasoning_summary_text.delta', ...location, summary_index: 0, delta: 'One.' }),
        event({ type: 'response.reasoning_summary_part.added', ...location, summary_index: 1, part: { type: 'summary_text', text: '' } }),
        event({ type: 'response.reasoning_summary_text.delta', ...location, summary_index: 1, delta: 'Two.' }),
        event({ type: 'response.reasoning_text.delta', ...location, content_index: 0, delta: 'raw' }),
        event({ type: 'response.refusal.delta', item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'No.' }),
        terminal('response.completed', { status: 'completed' }),
      ]),
    ).toEqual([
      start,
      { type: 'reasoning-delta', text: 'One.', id: 'rs_1' },
      { type: 'reasoning-delta', text: '\n\n', id: 'rs_1' },
      { type: 'reasoning-delta', text: 'Two.', id: 'rs_1' },
      { type: 'reasoning-delta', text: 'raw', id: 'rs_1' },
      { type: 'refusal-delta', text: 'No.' },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'completed' }, usage: { inputTokens: 0, outputTokens: 0, estimated: true } },
    ]);
  });

  it('should take arguments from output_item.done when the upstream streamed none', () => {
    const item = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'now', arguments: '' };
    expect(
      decodeAll([
        created,
        event({ type: 'response.output_item.added', output_index: 0, item }),
        event({ type: 'response.output_item.done', output_index: 0, item: { ...item, arguments: '{"tz":"UTC"}' } }),
        terminal('response.completed', { status: 'completed' }),
      ]).slice(1, 4),
    ).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_1', name: 'now' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"tz":"UTC"}' },
      { type: 'tool-call-end', index: 0 },
    ]);
  });

  it('should take text from output_text.done when the upstream streamed none, and never twice', () => {
    const location = { item_id: 'msg_1', output_index: 0, content_index: 0 };
    const parts = decodeAll([
      created,
      event({ type: 'response.content_part.added', ...location, part: { type: 'output_text', text: '' } }),
      event({ type: 'response.output_text.done', ...location, text: 'Whole.' }),
      event({ type: 'response.content_part.added', ...location, content_index: 1, part: { type: 'output_text', text: '' } }),
      event({ type: 'response.output_text.delta', ...location, content_index: 1, delta: 'Streamed.' }),
      event({ type: 'response.output_text.done', ...location, content_index: 1, text: 'Streamed.' }),
      terminal('response.completed', { status: 'completed' }),
    ]);
    expect(parts.slice(1, -1)).toEqual([
      { type: 'text-delta', text: 'Whole.' },
      { type: 'text-delta', text: 'Streamed.' },
    ]);
  });

  it('should finish with length on response.incomplete', () => {
    expect(
      decodeAll([created, terminal('response.incomplete', { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } })]).at(-1),
    ).toEqual({ type: 'finish', finishReason: { unified: 'length', raw: 'max_output_tokens' }, usage: { inputTokens: 0, outputTokens: 0, estimated: true } });
  });

  it('should end with an error part on response.failed and ignore anything after it', () => {
    const parts = decodeAll([
      created,
      terminal('response.failed', { status: 'failed', error: { code: 'server_error', message: 'Boom.' } }),
      event({ type: 'response.output_text.delta', delta: 'late' }),
    ]);
    expect(parts.length).toBe(2);
    expect(parts[1]).toMatchObject({ type: 'error', error: { kind: 'upstream_error', code: 'server_error', message: 'Boom.' } });
  });

  it.each([
    [{ type: 'error', code: 'rate_limit_exceeded', message: 'Slow down.', param: null }],
    [{ type: 'error', error: { type: 'invalid_request_error', code: 'rate_limit_exceeded', message: 'Slow down.' } }],
  ])('should turn the error event %j into an error part', (data) => {
    expect(decodeAll([created, event(data)])[1]).toMatchObject({ type: 'error', error: { kind: 'rate_limited', message: 'Slow down.' } });
  });

  it('should report a stream that closes before its terminal event', () => {
    expect(decodeAll([created, event({ type: 'response.output_text.delta', delta: 'Hi' })]).at(-1)).toMatchObject({
      type: 'error',
      error: { kind: 'upstream_error' },
    });
  });

  it('should report an unreadable event as an error', () => {
    expect(decodeAll([created, { event: 'response.output_text.delta', data: '{"type":' }])[1]).toMatchObject({ type: 'error' });
  });

  it('should skip hosted-tool and unknown events', () => {
    expect(
      decodeAll([
        created,
        event({ type: 'response.web_search_call.searching', item_id: 'ws_1', output_index: 0 }),
        event({ type: 'response.output_item.added', output_index: 0, item: { type: 'web_search_call', id: 'ws_1' } }),
        terminal('response.completed', { status: 'completed' }),
      ]).map((part) => part.type),
    ).toEqual(['start', 'finish']);
  });
});

describe('extractUsage', () => {
  it('should read usage from the terminal event only', () => {
    const events = readFixtureEvents('reasoning.chunks.txt');
    expect(events.map(extractUsage).filter((usage) => usage !== undefined)).toEqual([
      { inputTokens: 31, outputTokens: 210, cacheReadTokens: 12, reasoningTokens: 180 },
    ]);
  });

  it('should read usage from response.incomplete and ignore a delta that mentions usage', () => {
    expect(extractUsage(terminal('response.incomplete', { usage: { input_tokens: 5, output_tokens: 16 } }))).toEqual({ inputTokens: 5, outputTokens: 16 });
    expect(extractUsage(event({ type: 'response.output_text.delta', delta: '"usage"' }))).toBeUndefined();
  });
});
