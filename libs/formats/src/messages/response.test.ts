import type { CanonicalResponse } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { responseFromCanonical, responseToCanonical } from './response.ts';

const CONTEXT = { model: 'claude-sonnet-4-5', requestId: 'req_1' };

const ANSWER = {
  id: 'msg_01XY',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [
    { type: 'thinking', thinking: 'Need a lookup.', signature: 'EqQB' },
    { type: 'redacted_thinking', data: 'EmwK' },
    { type: 'text', text: 'Let me check.' },
    { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Oslo' } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 410, output_tokens: 52, cache_creation_input_tokens: 100, cache_read_input_tokens: 1024 },
};

describe('responseToCanonical', () => {
  it('should decode content, the stop reason and usage with cached tokens counted in the input total', () => {
    const response = responseToCanonical({ ...ANSWER, usage: { ...ANSWER.usage, output_tokens_details: { thinking_tokens: 20 } } });
    expect({ ...response, created: 0 }).toEqual({
      id: 'msg_01XY',
      model: 'claude-sonnet-4-5',
      created: 0,
      content: [
        { type: 'reasoning', text: 'Need a lookup.', signature: { origin: 'messages', value: 'EqQB' } },
        { type: 'reasoning', text: '', redactedData: 'EmwK' },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool-call', id: 'toolu_01A', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_use' },
      usage: { inputTokens: 1534, outputTokens: 52, cacheReadTokens: 1024, cacheWriteTokens: 100, reasoningTokens: 20 },
    });
  });

  it('should keep the stop sequence and mark missing usage as estimated', () => {
    const response = responseToCanonical({ id: 'msg_1', content: [], stop_reason: 'stop_sequence', stop_sequence: 'END' });
    expect([response.finishReason, response.usage]).toEqual([
      { unified: 'stop', raw: 'stop_sequence', stopSequence: 'END' },
      { inputTokens: 0, outputTokens: 0, estimated: true },
    ]);
  });

  it('should leave out server-tool blocks', () => {
    const response = responseToCanonical({
      ...ANSWER,
      content: [
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
        { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
        { type: 'text', text: 'Found.', citations: null },
      ],
    });
    expect(response.content).toEqual([{ type: 'text', text: 'Found.' }]);
  });

  it('should report a body that is not a messages response as an upstream error', () => {
    expect(() => responseToCanonical({ error: 'nope' })).toThrow(expect.objectContaining({ kind: 'upstream_error' }));
  });
});

describe('responseFromCanonical', () => {
  it('should reproduce the vendor answer it decoded', () => {
    expect(responseFromCanonical(responseToCanonical(ANSWER), CONTEXT)).toEqual(ANSWER);
  });

  it('should drop foreign reasoning and map ids, finish reasons and usage from another format', () => {
    const response: CanonicalResponse = {
      id: 'chatcmpl-7Qx',
      model: 'gpt-4o',
      created: 1,
      content: [
        { type: 'reasoning', text: 'summary', signature: { origin: 'responses', value: 'gAAA' } },
        { type: 'text', text: '' },
        { type: 'refusal', text: 'I cannot help with that.' },
        { type: 'tool-call', id: 'functions.f:0', name: 'f', arguments: '' },
        { type: 'file', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } },
      ],
      finishReason: { unified: 'content-filter', raw: 'content_filter' },
      usage: { inputTokens: 82, outputTokens: 17, cacheReadTokens: 32 },
    };
    expect(responseFromCanonical(response, CONTEXT)).toEqual({
      id: 'msg_chatcmpl-7Qx',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'text', text: 'I cannot help with that.' },
        { type: 'tool_use', id: expect.stringMatching(/^functions_f_0_[0-9a-f]{12}$/), name: 'f', input: {} },
      ],
      stop_reason: 'refusal',
      stop_sequence: null,
      usage: { input_tokens: 50, output_tokens: 17, cache_creation_input_tokens: 0, cache_read_input_tokens: 32 },
    });
  });

  it('should name the stop sequence that matched', () => {
    const answer = responseFromCanonical(
      { id: '', model: 'x', created: 1, content: [], finishReason: { unified: 'stop', stopSequence: 'END' }, usage: { inputTokens: 1, outputTokens: 1 } },
      CONTEXT,
    );
    expect(answer).toMatchObject({ id: 'msg_req_1', stop_reason: 'stop_sequence', stop_sequence: 'END' });
  });

  it('should blame the upstream for tool arguments that are not a JSON object', () => {
    const response: CanonicalResponse = {
      id: 'x',
      model: 'x',
      created: 1,
      content: [{ type: 'tool-call', id: 'c1', name: 'f', arguments: '{"a":' }],
      finishReason: { unified: 'tool-calls' },
      usage: { inputTokens: 1, outputTokens: 1 },
    };
    expect(() => responseFromCanonical(response, CONTEXT)).toThrow(expect.objectContaining({ kind: 'upstream_error' }));
  });
});
