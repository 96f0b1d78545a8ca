import type { CanonicalResponse } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { responseFromCanonical, responseToCanonical } from './response.ts';

const context = { model: 'fast-chat', requestId: 'req_1' };

const usage = {
  input_tokens: 90,
  input_tokens_details: { cached_tokens: 40 },
  output_tokens: 40,
  output_tokens_details: { reasoning_tokens: 24 },
  total_tokens: 130,
};

function upstream(fields: Record<string, unknown>): Record<string, unknown> {
  return { id: 'resp_01', object: 'response', created_at: 1767225600, status: 'completed', model: 'gpt-4.1', output: [], usage, ...fields };
}

describe('responseToCanonical', () => {
  it('should decode reasoning, text, refusal and function calls with usage', () => {
    const response = responseToCanonical(
      upstream({
        output: [
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Need a lookup.' }], encrypted_content: 'gAAA' },
          { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Checking.', annotations: [] }, { type: 'refusal', refusal: 'Not that.' }] },
          { type: 'web_search_call', id: 'ws_1', status: 'completed' },
          { type: 'function_call', id: 'fc_1', call_id: 'call_9f2', name: 'get_weather', arguments: '{"city":"Oslo"}', status: 'completed' },
        ],
      }),
    );
    expect(response).toEqual({
      id: 'resp_01',
      model: 'gpt-4.1',
      created: 1767225600,
      content: [
        { type: 'reasoning', text: 'Need a lookup.', id: 'rs_1', signature: { origin: 'responses', value: 'gAAA' } },
        { type: 'text', text: 'Checking.' },
        { type: 'refusal', text: 'Not that.' },
        { type: 'tool-call', id: 'call_9f2', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      ],
      finishReason: { unified: 'tool-calls', raw: 'completed' },
      usage: { inputTokens: 90, outputTokens: 40, cacheReadTokens: 40, reasoningTokens: 24 },
    });
  });

  it.each([
    [{ status: 'completed' }, { unified: 'stop', raw: 'completed' }],
    [{ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }, { unified: 'length', raw: 'max_output_tokens' }],
    [{ status: 'incomplete', incomplete_details: { reason: 'content_filter' } }, { unified: 'content-filter', raw: 'content_filter' }],
    [{ status: 'cancelled' }, { unified: 'other', raw: 'cancelled' }],
  ])('should derive the finish reason of %j', (fields, finishReason) => {
    expect(responseToCanonical(upstream(fields)).finishReason).toEqual(finishReason);
  });

  it('should mark usage as estimated when the upstream sent none', () => {
    expect(responseToCanonical(upstream({ usage: null })).usage).toEqual({ inputTokens: 0, outputTokens: 0, estimated: true });
  });

  it('should turn a failed response into an error of the matching kind', () => {
    const failed = upstream({ status: 'failed', error: { code: 'rate_limit_exceeded', message: 'Slow down.' } });
    expect(() => responseToCanonical(failed)).toThrow(expect.objectContaining({ kind: 'rate_limited', code: 'rate_limit_exceeded', message: 'Slow down.' }));
  });

  it('should reject a malformed answer as an upstream error', () => {
    expect(() => responseToCanonical({ object: 'response' })).toThrow(expect.objectContaining({ kind: 'upstream_error', status: 502 }));
  });
});

const canonical: CanonicalResponse = {
  id: 'chatcmpl-7Qx',
  model: 'gpt-4o-2024-08-06',
  created: 1767225600,
  content: [
    { type: 'reasoning', text: 'Need a lookup.', signature: { origin: 'messages', value: 'EqQB' } },
    { type: 'text', text: 'Checking ' },
    { type: 'text', text: 'both.' },
    { type: 'tool-call', id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    { type: 'tool-call', id: 'call_b', name: 'get_weather', arguments: '{"city":"Bergen"}' },
  ],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage: { inputTokens: 82, outputTokens: 17, cacheReadTokens: 10, reasoningTokens: 5 },
};

describe('responseFromCanonical', () => {
  it('should render the full response object with derived ids', () => {
    expect(responseFromCanonical(canonical, context)).toEqual({
      id: 'resp_7Qx',
      object: 'response',
      created_at: 1767225600,
      status: 'completed',
      model: 'fast-chat',
      error: null,
      incomplete_details: null,
      instructions: null,
      output: [
        { type: 'reasoning', id: 'rs_7Qx_0', summary: [{ type: 'summary_text', text: 'Need a lookup.' }] },
        {
          id: 'msg_7Qx_1',
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [
            { type: 'output_text', text: 'Checking ', annotations: [] },
            { type: 'output_text', text: 'both.', annotations: [] },
          ],
        },
        { type: 'function_call', id: 'fc_7Qx_2', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo"}', status: 'completed' },
        { type: 'function_call', id: 'fc_7Qx_3', call_id: 'call_b', name: 'get_weather', arguments: '{"city":"Bergen"}', status: 'completed' },
      ],
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: [],
      temperature: null,
      top_p: null,
      text: { format: { type: 'text' } },
      reasoning: { effort: null, summary: null },
      usage: {
        input_tokens: 82,
        input_tokens_details: { cached_tokens: 10 },
        output_tokens: 17,
        output_tokens_details: { reasoning_tokens: 5 },
        total_tokens: 99,
      },
      metadata: {},
    });
  });

  it.each([
    [{ unified: 'length' }, 'incomplete', { reason: 'max_output_tokens' }],
    [{ unified: 'content-filter' }, 'incomplete', { reason: 'content_filter' }],
    [{ unified: 'stop' }, 'completed', null],
  ] as const)('should render finish reason %j as status %s', (finishReason, status, incompleteDetails) => {
    const rendered = responseFromCanonical({ ...canonical, finishReason }, context);
    expect([rendered.status, rendered.incomplete_details]).toEqual([status, incompleteDetails]);
  });

  it('should render cache write tokens only when known', () => {
    const rendered = responseFromCanonical({ ...canonical, usage: { inputTokens: 5, outputTokens: 1, cacheWriteTokens: 3 } }, context);
    expect(rendered.usage?.input_tokens_details).toEqual({ cached_tokens: 0, cache_write_tokens: 3 });
  });

  it('should keep a Responses reasoning id and encrypted content for replay', () => {
    const rendered = responseFromCanonical(
      { ...canonical, content: [{ type: 'reasoning', text: '', id: 'rs_up', signature: { origin: 'responses', value: 'gAAA' } }] },
      context,
    );
    expect(rendered.output).toEqual([{ type: 'reasoning', id: 'rs_up', summary: [], encrypted_content: 'gAAA' }]);
  });
});

describe('responses answer round trip', () => {
  it('should keep content, finish reason and usage through canonical and back', () => {
    const body = upstream({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Thinking.' }], encrypted_content: 'gAAA' },
        { id: 'msg_x', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Partial', annotations: [] }] },
      ],
    });
    const rendered = responseFromCanonical(responseToCanonical(body), { model: 'gpt-4.1', requestId: 'req_1' });
    expect(rendered).toMatchObject({
      id: 'resp_01',
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Thinking.' }], encrypted_content: 'gAAA' },
        { type: 'message', content: [{ type: 'output_text', text: 'Partial', annotations: [] }] },
      ],
      usage,
    });
  });
});
