import { describe, expect, it } from 'vitest';
import { requestFromCanonical, requestToCanonical } from './request.ts';

const user = { role: 'user', content: 'Hi' } as const;

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
