import type { StreamPart } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { decodeAll } from './__fixtures__/replay.ts';
import { createStreamDecoder } from './stream-decoder.ts';

const start = { type: 'start', id: 'chatcmpl-1', model: 'm', created: 10 } as const;

/** A chunk as chat upstreams send it, `extra` merged at the top level. */
function chunk(delta: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}) {
  const choices = delta === undefined ? [] : [{ index: 0, delta, finish_reason: extra.finish_reason ?? null }];
  const { finish_reason: _reason, ...rest } = extra;
  return { data: JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 10, model: 'm', choices, ...rest }) };
}

const done = { data: '[DONE]' };

function decode(...events: Array<{ data: string; event?: string }>): StreamPart[] {
  return decodeAll(createStreamDecoder(), events);
}

describe('createStreamDecoder', () => {
  it('should skip a leading chunk with neither choices nor usage (Azure prompt filter results)', () => {
    const prefilter = { data: '{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[]}' };
    expect(decode(prefilter, chunk({ content: 'Hi' }), chunk({}, { finish_reason: 'stop' }), done)[0]).toEqual(start);
  });

  it('should finish on a finish chunk that carries the usage itself', () => {
    const usage = { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 };
    const decoder = createStreamDecoder();
    decoder.push(chunk({ content: 'x' }));
    expect(decoder.push(chunk({}, { finish_reason: 'length', usage }))).toEqual([
      { type: 'finish', finishReason: { unified: 'length', raw: 'length' }, usage: { inputTokens: 3, outputTokens: 1 } },
    ]);
    expect([...decoder.push(done), ...decoder.end()]).toEqual([]);
  });

  it('should wait past the finish chunk for the usage chunk', () => {
    const usage = { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 };
    const decoder = createStreamDecoder();
    decoder.push(chunk({ content: 'x' }, { usage: null }));
    expect(decoder.push(chunk({}, { finish_reason: 'stop', usage: null }))).toEqual([]);
    expect(decoder.push(chunk(undefined, { usage }))).toEqual([
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: { inputTokens: 3, outputTokens: 1 } },
    ]);
  });

  it('should finish at [DONE] with the latest running usage, or estimated usage when none came', () => {
    const running = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
    expect(decode(chunk({ content: 'x' }, { usage: running }), chunk({}, { finish_reason: 'stop' }), done).at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: 3, outputTokens: 2 },
    });
    expect(decode(chunk({ content: 'x' }), chunk({}, { finish_reason: 'stop' }), done).at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: 0, outputTokens: 0, estimated: true },
    });
  });

  it('should close open calls and finish as other when [DONE] comes without a finish reason', () => {
    expect(decode(chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: '{}' } }] }), done)).toEqual([
      start,
      { type: 'tool-call-start', index: 0, id: 'c', name: 'f' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'finish', finishReason: { unified: 'other' }, usage: { inputTokens: 0, outputTokens: 0, estimated: true } },
    ]);
  });

  it('should number calls by order of appearance whatever upstream index they carry, and follow calls without index', () => {
    const parts = decode(
      chunk({ tool_calls: [{ index: 3, id: 'a', function: { name: 'f', arguments: '' } }] }),
      chunk({ tool_calls: [{ id: 'b', function: { name: 'g', arguments: '{"x"' } }] }),
      chunk({ tool_calls: [{ function: { arguments: ':1}' } }] }),
      chunk({ tool_calls: [{ index: 3, function: { arguments: '{}' } }] }),
      chunk({}, { finish_reason: 'tool_calls' }),
      done,
    );
    expect(parts.slice(1, -1)).toEqual([
      { type: 'tool-call-start', index: 0, id: 'a', name: 'f' },
      { type: 'tool-call-start', index: 1, id: 'b', name: 'g' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"x"' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: ':1}' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'tool-call-end', index: 1 },
    ]);
  });

  it('should read the newer `reasoning` field as reasoning too, and skip empty deltas', () => {
    const parts = decode(
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning: 'hmm', content: null }),
      chunk({}, { finish_reason: 'stop' }),
      done,
    );
    expect(parts.slice(1, -1)).toEqual([{ type: 'reasoning-delta', text: 'hmm' }]);
  });

  it.each([
    ['[DONE] before any chunk', [done], 'The upstream stream ended without an answer.'],
    ['an event that is not JSON', [{ data: '{"id":' }], 'The upstream sent a stream event that is not JSON.'],
    ['a chunk of the wrong shape', [{ data: '{"choices":"x"}' }], 'The upstream sent a stream event that is not a chat completion chunk.'],
    ['an error event with plain text', [{ event: 'error', data: 'boom' }], 'boom'],
    ['EOF without [DONE]', [chunk({ content: 'x' }), chunk({}, { finish_reason: 'stop' })], 'upstream stream ended early'],
  ])('should end with one upstream error part after %s', (_name, events, message) => {
    const parts = decode(...events);
    expect(parts.filter((part) => part.type === 'error')).toHaveLength(1);
    expect(parts.at(-1)).toMatchObject({ type: 'error', error: { kind: 'upstream_error', message } });
  });

  it('should keep the upstream error fields of an error chunk', () => {
    const error = { message: 'Rate limited', type: 'requests', param: null, code: 'rate_limit_exceeded' };
    const parts = decode(chunk({ content: 'x' }), { data: JSON.stringify({ error }) });
    expect(parts.at(-1)).toMatchObject({
      type: 'error',
      error: { kind: 'upstream_error', message: 'Rate limited', upstreamType: 'requests', code: 'rate_limit_exceeded' },
    });
  });
});
