import { GatewayError } from '@switchyard/canonical';
import type { CanonicalRequest } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { requestFromCanonical, requestToCanonical } from './request.ts';

const user = { role: 'user', content: 'Hi' } as const;

function decode(body: Record<string, unknown>): CanonicalRequest {
  return requestToCanonical(body, {});
}

function caught(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (GatewayError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

describe('requestToCanonical', () => {
  it('should decode a plain text request', () => {
    expect(decode({ model: 'gpt-4o', messages: [user] })).toEqual({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      stream: false,
    });
  });

  it('should let the context override model and stream', () => {
    const request = requestToCanonical({ model: 'a', messages: [user], stream: false }, { model: 'b', stream: true });
    expect([request.model, request.stream]).toEqual(['b', true]);
  });

  it('should decode sampling parameters, stop and max tokens', () => {
    expect(
      decode({
        model: 'm',
        messages: [user],
        temperature: 0.2,
        top_p: 0.9,
        n: 1,
        seed: 7,
        presence_penalty: -1,
        frequency_penalty: 1.5,
        stop: 'END',
        max_tokens: 100,
        parallel_tool_calls: false,
      }),
    ).toMatchObject({
      temperature: 0.2,
      topP: 0.9,
      n: 1,
      seed: 7,
      presencePenalty: -1,
      frequencyPenalty: 1.5,
      stopSequences: ['END'],
      maxOutputTokens: 100,
      parallelToolCalls: false,
    });
  });

  it('should prefer max_completion_tokens over the legacy max_tokens', () => {
    expect(decode({ model: 'm', messages: [user], max_tokens: 100, max_completion_tokens: 300 }).maxOutputTokens).toBe(300);
  });

  it('should treat null optional fields as absent', () => {
    const request = decode({ model: 'm', messages: [user], temperature: null, stop: null, tools: null, user: null });
    expect(request).toEqual({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], stream: false });
  });

  it('should decode response formats', () => {
    expect(decode({ model: 'm', messages: [user], response_format: { type: 'json_object' } }).responseFormat).toEqual({ type: 'json' });
    expect(
      decode({
        model: 'm',
        messages: [user],
        response_format: { type: 'json_schema', json_schema: { name: 'city', schema: { type: 'object' }, strict: true } },
      }).responseFormat,
    ).toEqual({ type: 'json-schema', name: 'city', schema: { type: 'object' }, strict: true });
  });

  it('should decode reasoning_effort, user and stream options', () => {
    const request = decode({
      model: 'm',
      messages: [user],
      reasoning_effort: 'high',
      safety_identifier: 'u-1',
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(request).toMatchObject({ reasoning: { effort: 'high' }, user: 'u-1', stream: true, includeUsage: true });
    expect(request.extensions).toBeUndefined();
  });

  it('should keep the deprecated user as canonical and safety_identifier as an extension when both are sent', () => {
    const request = decode({ model: 'm', messages: [user], user: 'legacy', safety_identifier: 'new' });
    expect(request.user).toBe('legacy');
    expect(request.extensions).toEqual({ format: 'chat-completions', fields: { safety_identifier: 'new' } });
  });

  it('should keep vendor fields without canonical meaning as extensions', () => {
    const request = decode({
      model: 'm',
      messages: [user],
      logprobs: true,
      top_logprobs: 2,
      logit_bias: { '50256': -100 },
      modalities: ['text', 'audio'],
      audio: { voice: 'alloy', format: 'wav' },
      service_tier: 'flex',
      store: true,
      stream_options: { include_usage: false, include_obfuscation: false },
      brand_new_field: { x: 1 },
    });
    expect(request.includeUsage).toBe(false);
    expect(request.extensions).toEqual({
      format: 'chat-completions',
      fields: {
        logprobs: true,
        top_logprobs: 2,
        logit_bias: { '50256': -100 },
        modalities: ['text', 'audio'],
        audio: { voice: 'alloy', format: 'wav' },
        service_tier: 'flex',
        store: true,
        stream_options: { include_obfuscation: false },
        brand_new_field: { x: 1 },
      },
    });
  });

  it('should keep unknown fields inside messages without rejecting them', () => {
    expect(() => decode({ model: 'm', messages: [{ role: 'user', content: 'x', vendor_hint: 1 }] })).not.toThrow();
  });

  it.each([
    ['temperature', { temperature: 3 }],
    ['temperature', { temperature: -0.1 }],
    ['top_p', { top_p: 1.5 }],
    ['top_p', { top_p: -1 }],
    ['n', { n: 0 }],
    ['n', { n: 1.5 }],
    ['presence_penalty', { presence_penalty: -3 }],
    ['presence_penalty', { presence_penalty: 2.1 }],
    ['frequency_penalty', { frequency_penalty: 2.5 }],
    ['frequency_penalty', { frequency_penalty: -2.5 }],
    ['max_completion_tokens', { max_completion_tokens: 0 }],
    ['messages', { messages: [] }],
    ['messages', { messages: 'hello' }],
    ['model', { model: undefined }],
    ['model', { model: 42 }],
    ['messages[0].role', { messages: [{ role: 'robot', content: 'x' }] }],
    ['messages[0].tool_call_id', { messages: [{ role: 'tool', content: 'x' }] }],
    ['reasoning_effort', { reasoning_effort: 'extreme' }],
  ])('should answer 400 naming %s', (param, override) => {
    const error = caught(() => decode({ model: 'm', messages: [user], ...override }));
    expect([error.kind, error.status, error.param]).toEqual(['invalid_request', 400, param]);
  });
});

describe('requestFromCanonical', () => {
  const base: CanonicalRequest = { model: 'public', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], stream: false };

  it('should address the target model', () => {
    expect(requestFromCanonical(base, { model: 'upstream-id' })).toEqual({
      body: { model: 'upstream-id', messages: [{ role: 'user', content: 'Hi' }] },
      warnings: [],
    });
  });

  it('should always ask a streaming upstream for usage', () => {
    const { body } = requestFromCanonical({ ...base, stream: true, includeUsage: false }, { model: 'u' });
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('should merge extension stream options under the forced include_usage, and drop them when not streaming', () => {
    const extensions = { format: 'chat-completions', fields: { stream_options: { include_obfuscation: false } } } as const;
    expect(requestFromCanonical({ ...base, stream: true, extensions }, { model: 'u' }).body.stream_options).toEqual({
      include_obfuscation: false,
      include_usage: true,
    });
    expect(requestFromCanonical({ ...base, extensions }, { model: 'u' }).body).not.toHaveProperty('stream_options');
  });

  it('should ignore n and previous-response state', () => {
    const { body } = requestFromCanonical({ ...base, n: 3, previousResponseId: 'resp_1', store: true }, { model: 'u' });
    expect(Object.keys(body).filter((key) => body[key] !== undefined)).toEqual(['model', 'messages']);
  });

  it('should drop top_k with a warning', () => {
    const { body, warnings } = requestFromCanonical({ ...base, topK: 40 }, { model: 'u' });
    expect(body).not.toHaveProperty('top_k');
    expect(warnings).toEqual(['top_k is not supported by chat-completions and was dropped.']);
  });

  it('should map a reasoning budget to an effort through the shared policy', () => {
    expect(requestFromCanonical({ ...base, reasoning: { budgetTokens: 1500 } }, { model: 'u' }).body.reasoning_effort).toBe('low');
  });

  it('should copy extension fields only from its own format, never over canonical values', () => {
    const own = requestFromCanonical(
      { ...base, temperature: 0.5, extensions: { format: 'chat-completions', fields: { logprobs: true, temperature: 2 } } },
      { model: 'u' },
    );
    expect(own.body).toMatchObject({ logprobs: true, temperature: 0.5 });
    const foreign = requestFromCanonical({ ...base, extensions: { format: 'messages', fields: { top_k: 3 } } }, { model: 'u' });
    expect(foreign.body).not.toHaveProperty('top_k');
  });

  it('should refuse image or audio output it cannot produce', () => {
    expect(caught(() => requestFromCanonical({ ...base, outputModalities: ['text', 'image'] }, { model: 'u' })).kind).toBe(
      'invalid_request',
    );
    expect(requestFromCanonical({ ...base, outputModalities: ['text'] }, { model: 'u' }).warnings).toEqual([]);
  });
});

describe('chat → canonical → chat round trip', () => {
  const target = { model: 'upstream-model' };
  const tools = [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Current weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        strict: false,
      },
    },
    { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } },
  ];

  it.each<[string, Record<string, unknown>]>([
    ['text', { messages: [user] }],
    [
      'system and developer',
      {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'developer', content: [{ type: 'text', text: 'Rule A.' }, { type: 'text', text: 'Rule B.' }] },
          { role: 'user', content: 'Hi', name: 'ann' },
        ],
      },
    ],
    [
      'multi-turn',
      {
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Hello! How can I help?' },
          { role: 'user', content: 'Tell me a joke.' },
        ],
      },
    ],
    ['tool_choice auto', { messages: [user], tools, tool_choice: 'auto' }],
    ['tool_choice none', { messages: [user], tools, tool_choice: 'none' }],
    ['tool_choice required', { messages: [user], tools, tool_choice: 'required' }],
    ['tool_choice named', { messages: [user], tools, tool_choice: { type: 'function', function: { name: 'get_time' } } }],
    [
      'tool_choice allowed_tools',
      {
        messages: [user],
        tools,
        tool_choice: {
          type: 'allowed_tools',
          allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'get_weather' } }] },
        },
      },
    ],
    [
      'parallel tool calls and results',
      {
        messages: [
          { role: 'user', content: 'Weather and time in Oslo?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
              { id: 'functions.get_time:1', type: 'function', function: { name: 'get_time', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":3}' },
          { role: 'tool', tool_call_id: 'functions.get_time:1', content: [{ type: 'text', text: '12:00' }, { type: 'text', text: 'CET' }] },
        ],
        tools,
        parallel_tool_calls: true,
      },
    ],
    [
      'images by URL and base64',
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Compare.' },
              { type: 'image_url', image_url: { url: 'https://example.test/a.png', detail: 'low' } },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            ],
          },
        ],
      },
    ],
    [
      'audio and files',
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
              { type: 'file', file: { filename: 'spec.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
              { type: 'file', file: { file_id: 'file-abc123' } },
            ],
          },
        ],
      },
    ],
    ['JSON mode', { messages: [user], response_format: { type: 'json_object' } }],
    [
      'JSON schema',
      {
        messages: [user],
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'city', description: 'A city', schema: { type: 'object', properties: {} }, strict: true },
        },
      },
    ],
    ['stop sequences and max tokens', { messages: [user], stop: ['END', '###'], max_completion_tokens: 256 }],
    [
      'sampling, reasoning, user and metadata',
      {
        messages: [user],
        temperature: 0.7,
        top_p: 0.95,
        seed: 42,
        presence_penalty: 0.5,
        frequency_penalty: -0.5,
        reasoning_effort: 'minimal',
        user: 'user-1',
        metadata: { team: 'search' },
      },
    ],
    ['streaming', { messages: [user], stream: true, stream_options: { include_usage: true } }],
    [
      'assistant refusal',
      { messages: [user, { role: 'assistant', content: null, refusal: 'I cannot help with that.' }, { role: 'user', content: 'Why?' }] },
    ],
    [
      'vendor-only fields and tools',
      {
        messages: [user],
        tools: [...tools, { type: 'custom', custom: { name: 'sql', description: 'Free-form SQL' } }],
        tool_choice: { type: 'custom', custom: { name: 'sql' } },
        logprobs: true,
        top_logprobs: 3,
        logit_bias: { '1234': 5 },
        prediction: { type: 'content', content: 'draft' },
        verbosity: 'low',
      },
    ],
  ])('should reproduce %s', (_name, fields) => {
    const original = { model: 'public-model', ...fields };
    const { body, warnings } = requestFromCanonical(requestToCanonical(original, {}), target);
    expect(body).toEqual({ ...original, model: 'upstream-model' });
    expect(warnings).toEqual([]);
  });

  it('should normalise legacy spellings to current ones', () => {
    const { body } = requestFromCanonical(
      requestToCanonical({ model: 'm', messages: [user], max_tokens: 50, stop: 'END', safety_identifier: 's' }, {}),
      target,
    );
    expect(body).toEqual({ model: 'upstream-model', messages: [user], max_completion_tokens: 50, stop: ['END'], user: 's' });
  });

  it('should turn legacy functions and function_call into tools', () => {
    const { body } = requestFromCanonical(
      requestToCanonical(
        {
          model: 'm',
          messages: [
            user,
            { role: 'assistant', content: null, function_call: { name: 'get_time', arguments: '{}' } },
            { role: 'function', name: 'get_time', content: '12:00' },
          ],
          functions: [{ name: 'get_time' }],
          function_call: { name: 'get_time' },
        },
        {},
      ),
      target,
    );
    expect(body).toEqual({
      model: 'upstream-model',
      messages: [
        user,
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_function_1', type: 'function', function: { name: 'get_time', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_function_1', content: '12:00' },
      ],
      tools: [{ type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } }],
      tool_choice: { type: 'function', function: { name: 'get_time' } },
    });
  });
});
