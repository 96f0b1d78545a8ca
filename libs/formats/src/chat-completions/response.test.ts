import { GatewayError } from '@switchyard/canonical';
import type { CanonicalResponse } from '@switchyard/canonical';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { responseFromCanonical, responseToCanonical } from './response.ts';

const context = { model: 'public-model', requestId: 'req_1' };

/** protocols.md §3.4 */
const toolAnswer = {
  id: 'chatcmpl-7Qx',
  object: 'chat.completion',
  created: 1767225600,
  model: 'gpt-4o-2024-08-06',
  choices: [
    {
      index: 0,
      finish_reason: 'tool_calls',
      logprobs: null,
      message: {
        role: 'assistant',
        content: null,
        refusal: null,
        annotations: [],
        tool_calls: [{ id: 'call_9f2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
      },
    },
  ],
  usage: {
    prompt_tokens: 82,
    completion_tokens: 17,
    total_tokens: 99,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  },
  system_fingerprint: 'fp_x1',
  service_tier: 'default',
};

describe('responseToCanonical', () => {
  it('should decode a tool-call answer', () => {
    expect(responseToCanonical(toolAnswer)).toEqual({
      id: 'chatcmpl-7Qx',
      model: 'gpt-4o-2024-08-06',
      created: 1767225600,
      content: [{ type: 'tool-call', id: 'call_9f2', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: { inputTokens: 82, outputTokens: 17, cacheReadTokens: 0, reasoningTokens: 0 },
    });
  });

  it('should decode reasoning_content, text and refusal', () => {
    const response = responseToCanonical({
      id: 'x',
      model: 'deepseek-reasoner',
      created: 1,
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: '4', reasoning_content: '2+2', refusal: 'partly' } }],
      usage: { prompt_tokens: 3, completion_tokens: 9, total_tokens: 12, completion_tokens_details: { reasoning_tokens: 5 } },
    });
    expect(response.content).toEqual([
      { type: 'reasoning', text: '2+2' },
      { type: 'text', text: '4' },
      { type: 'refusal', text: 'partly' },
    ]);
    expect(response.usage).toEqual({ inputTokens: 3, outputTokens: 9, reasoningTokens: 5 });
  });

  it('should mark usage as estimated when the upstream sent none', () => {
    const response = responseToCanonical({ id: 'x', choices: [{ message: { content: 'hi' }, finish_reason: 'stop' }] });
    expect(response.usage).toEqual({ inputTokens: 0, outputTokens: 0, estimated: true });
  });

  it.each([[{ choices: [] }], [{ error: { message: 'x' } }], ['not json'], [null]])('should answer an upstream error for %j', (body) => {
    let error: unknown;
    try {
      responseToCanonical(body);
    } catch (caught) {
      error = caught;
    }
    expect(GatewayError.isInstance(error) && error.kind).toBe('upstream_error');
  });
});

describe('responseFromCanonical', () => {
  const canonical: CanonicalResponse = {
    id: 'msg_01XY',
    model: 'claude-sonnet-4-5',
    created: 1767225600,
    content: [
      { type: 'reasoning', text: 'Need a lookup.', signature: { origin: 'messages', value: 'EqQB' } },
      { type: 'text', text: 'Let me check. ' },
      { type: 'text', text: 'One moment.' },
      { type: 'tool-call', id: 'toolu_01A', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ],
    finishReason: { unified: 'tool-calls', raw: 'tool_use' },
    usage: { inputTokens: 1434, outputTokens: 52, cacheReadTokens: 1024, cacheWriteTokens: 0 },
  };

  it('should render the client model, a chatcmpl id, joined text and tool calls', () => {
    const body: ChatCompletion = responseFromCanonical(canonical, context);
    expect(body).toEqual({
      id: 'chatcmpl-msg_01XY',
      object: 'chat.completion',
      created: 1767225600,
      model: 'public-model',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Let me check. One moment.',
            refusal: null,
            tool_calls: [{ id: 'toolu_01A', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: {
        prompt_tokens: 1434,
        completion_tokens: 52,
        total_tokens: 1486,
        prompt_tokens_details: { cached_tokens: 1024, cache_write_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
  });

  it('should add reasoning_content only for clients that opted in', () => {
    expect(responseFromCanonical(canonical, { ...context, includeReasoning: true }).choices[0]?.message.reasoning_content).toBe(
      'Need a lookup.',
    );
  });

  it('should send an empty string for an answer without any text', () => {
    const body = responseFromCanonical({ ...canonical, content: [], finishReason: { unified: 'length' } }, context);
    expect(body.choices[0]?.message).toEqual({ role: 'assistant', content: '', refusal: null });
    expect(body.choices[0]?.finish_reason).toBe('length');
  });

  it('should render a refusal in its own field with null content', () => {
    const body = responseFromCanonical({ ...canonical, content: [{ type: 'refusal', text: 'No.' }] }, context);
    expect(body.choices[0]?.message).toEqual({ role: 'assistant', content: null, refusal: 'No.' });
  });
});

describe('chat answer → canonical → chat answer', () => {
  function answer(message: Record<string, unknown>, finishReason: string, usage: Record<string, unknown>) {
    return {
      id: 'chatcmpl-9',
      object: 'chat.completion',
      created: 1767225601,
      model: 'o4-mini',
      choices: [{ index: 0, message: { role: 'assistant', refusal: null, ...message }, logprobs: null, finish_reason: finishReason }],
      usage,
    };
  }

  it.each([
    [
      'parallel tool calls',
      answer(
        {
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
            { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
          ],
        },
        'tool_calls',
        {
          prompt_tokens: 82,
          completion_tokens: 17,
          total_tokens: 99,
          prompt_tokens_details: { cached_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 0 },
        },
      ),
    ],
    [
      'text with cached and reasoning usage',
      answer({ content: 'Hello.' }, 'stop', {
        prompt_tokens: 2000,
        completion_tokens: 300,
        total_tokens: 2300,
        prompt_tokens_details: { cached_tokens: 1920, cache_write_tokens: 64 },
        completion_tokens_details: { reasoning_tokens: 256 },
      }),
    ],
    [
      'a length cut',
      answer({ content: 'Once upon' }, 'length', {
        prompt_tokens: 5,
        completion_tokens: 2,
        total_tokens: 7,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      }),
    ],
  ])('should reproduce %s', (_name, original) => {
    expect(responseFromCanonical(responseToCanonical(original), { model: 'o4-mini', requestId: 'r' })).toEqual(original);
  });
});
