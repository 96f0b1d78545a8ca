import type { CanonicalRequest } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { requestFromCanonical, requestToCanonical } from './request.ts';

function decode(body: Record<string, unknown>): CanonicalRequest {
  return requestToCanonical(body, {});
}

/** fromCanonical(toCanonical(x)) for an upstream serving the same model name. */
function roundTrip(body: Record<string, unknown>) {
  return requestFromCanonical(decode(body), { model: String(body.model) });
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

const SIGNATURE = { origin: 'messages', value: 'EqQB' } as const;
/** The shortest conversation the API accepts: it refuses an empty `messages`. */
const HELLO = [{ role: 'user', content: 'Hello.' }];

describe('requestToCanonical', () => {
  it('should decode text, a string system prompt and sampling settings', () => {
    expect(
      decode({
        model: 'claude-sonnet-4-5',
        max_tokens: 512,
        system: 'Answer tersely.',
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
        temperature: 0.2,
        top_p: 0.9,
        top_k: 40,
        stop_sequences: ['END'],
        metadata: { user_id: 'user-7' },
        stream: true,
      }),
    ).toEqual({
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Answer tersely.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
      ],
      maxOutputTokens: 512,
      temperature: 0.2,
      topP: 0.9,
      topK: 40,
      stopSequences: ['END'],
      user: 'user-7',
      stream: true,
    });
  });

  it('should decode system text blocks into one system message and drop block cache_control', () => {
    const request = decode({
      model: 'm',
      max_tokens: 1,
      system: [
        { type: 'text', text: 'Rules.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'More rules.' },
      ],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] }],
    });
    expect(request.messages).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'Rules.' }, { type: 'text', text: 'More rules.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
    ]);
  });

  it('should place each tool_result in its own tool message before the rest of the user turn', () => {
    const request = decode({
      model: 'm',
      max_tokens: 1,
      messages: [
        { role: 'user', content: 'Weather in Oslo and Bergen?' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_A', name: 'get_weather', input: { city: 'Oslo' } },
            { type: 'tool_use', id: 'toolu_B', name: 'get_weather', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Here you go.' },
            { type: 'tool_result', tool_use_id: 'toolu_A', content: '3 °C' },
            { type: 'tool_result', tool_use_id: 'toolu_B', content: [{ type: 'text', text: 'offline' }], is_error: true },
          ],
        },
      ],
    });
    expect(request.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', id: 'toolu_A', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          { type: 'tool-call', id: 'toolu_B', name: 'get_weather', arguments: '{}' },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', callId: 'toolu_A', name: 'get_weather', content: '3 °C' }] },
      {
        role: 'tool',
        content: [{ type: 'tool-result', callId: 'toolu_B', name: 'get_weather', content: [{ type: 'text', text: 'offline' }], isError: true }],
      },
      { role: 'user', content: [{ type: 'text', text: 'Here you go.' }] },
    ]);
  });

  it('should decode image and document sources, including plain text as base64 text/plain', () => {
    const request = decode({
      model: 'm',
      max_tokens: 1,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
            { type: 'image', source: { type: 'url', url: 'https://example.test/a.png' } },
            { type: 'image', source: { type: 'file', file_id: 'file_1' } },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' }, title: 'Spec' },
            { type: 'document', source: { type: 'url', url: 'https://example.test/a.pdf' } },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain words' } },
            { type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] } },
          ],
        },
      ],
    });
    expect(request.messages[0]?.content).toEqual([
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } },
      { type: 'image', source: { kind: 'url', url: 'https://example.test/a.png' } },
      { type: 'image', source: { kind: 'file-id', fileId: 'file_1' } },
      { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBE' }, title: 'Spec' },
      { type: 'file', source: { kind: 'url', url: 'https://example.test/a.pdf' } },
      { type: 'file', source: { kind: 'base64', mediaType: 'text/plain', data: Buffer.from('plain words').toString('base64') } },
      { type: 'file', source: { kind: 'base64', mediaType: 'text/plain', data: Buffer.from('a\nb').toString('base64') } },
    ]);
  });

  it('should decode thinking with its signature and redacted_thinking with its data', () => {
    const request = decode({
      model: 'm',
      max_tokens: 1,
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Hmm.', signature: 'EqQB' },
            { type: 'redacted_thinking', data: 'EmwK' },
            { type: 'text', text: 'Hello.' },
          ],
        },
      ],
    });
    expect(request.messages[1]?.content).toEqual([
      { type: 'reasoning', text: 'Hmm.', signature: SIGNATURE },
      { type: 'reasoning', text: '', redactedData: 'EmwK' },
      { type: 'text', text: 'Hello.' },
    ]);
  });

  it('should decode thinking settings and output_config into reasoning and a response format', () => {
    const base = { model: 'm', max_tokens: 1, messages: HELLO };
    expect(decode({ ...base, thinking: { type: 'enabled', budget_tokens: 2048 } }).reasoning).toEqual({
      budgetTokens: 2048,
      includeThoughts: true,
    });
    expect(decode({ ...base, thinking: { type: 'adaptive', display: 'omitted' } }).reasoning).toEqual({
      effort: 'medium',
      includeThoughts: false,
    });
    expect(decode({ ...base, thinking: { type: 'adaptive' }, output_config: { effort: 'high' } }).reasoning).toEqual({
      effort: 'high',
      includeThoughts: true,
    });
    expect(decode({ ...base, thinking: { type: 'disabled' } }).reasoning).toBeUndefined();
    expect(decode({ ...base, output_config: { format: { type: 'json_schema', schema: { type: 'object' } } } }).responseFormat).toEqual({
      type: 'json-schema',
      schema: { type: 'object' },
    });
  });

  it('should decode custom tools and every tool_choice, keeping server tools as extensions', () => {
    const tools = [
      { name: 'get_weather', description: 'Current weather', input_schema: { type: 'object', properties: {} }, cache_control: { type: 'ephemeral' } },
      { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
    ];
    const base = { model: 'm', max_tokens: 1, messages: HELLO, tools };
    const request = decode({ ...base, tool_choice: { type: 'auto', disable_parallel_tool_use: true } });
    expect([request.tools, request.toolChoice, request.parallelToolCalls, request.extensions]).toEqual([
      [{ name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: {} } }],
      { type: 'auto' },
      false,
      { format: 'messages', fields: { tools: [tools[1]] } },
    ]);
    expect(decode({ ...base, tool_choice: { type: 'any' } }).toolChoice).toEqual({ type: 'required' });
    expect(decode({ ...base, tool_choice: { type: 'tool', name: 'get_weather' } }).toolChoice).toEqual({ type: 'tool', name: 'get_weather' });
    expect(decode({ ...base, tool_choice: { type: 'none' } }).toolChoice).toEqual({ type: 'none' });
  });

  it('should keep unknown top-level fields as extensions and drop block types it cannot carry', () => {
    const request = decode({
      model: 'm',
      max_tokens: 1,
      service_tier: 'standard_only',
      cache_control: { type: 'ephemeral' },
      container: 'cntr_1',
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
            { type: 'text', text: 'Found it.' },
          ],
        },
      ],
    });
    expect([request.extensions, request.messages]).toEqual([
      { format: 'messages', fields: { service_tier: 'standard_only', cache_control: { type: 'ephemeral' }, container: 'cntr_1' } },
      [{ role: 'assistant', content: [{ type: 'text', text: 'Found it.' }] }],
    ]);
  });

  it('should let the request context choose the model and streaming', () => {
    const request = requestToCanonical({ model: 'body-model', max_tokens: 1, messages: HELLO }, { model: 'url-model', stream: true });
    expect([request.model, request.stream]).toEqual(['url-model', true]);
  });

  it('should answer 400 naming the param for out-of-range and malformed fields', () => {
    const base = { model: 'm', max_tokens: 10, messages: HELLO };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, max_tokens: 0 }, 'max_tokens'],
      [{ model: 'm', messages: HELLO }, 'max_tokens'],
      [{ ...base, messages: [] }, 'messages'],
      [{ ...base, max_tokens: 1.5 }, 'max_tokens'],
      [{ ...base, temperature: 1.5 }, 'temperature'],
      [{ ...base, top_p: -0.1 }, 'top_p'],
      [{ ...base, messages: [{ role: 'system', content: 'x' }] }, 'messages[0].role'],
      [{ ...base, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64' } }] }] }, 'messages[0].content[0].source.media_type'],
      [{ ...base, messages: [{ role: 'user', content: [{ type: 'tool_result' }] }] }, 'messages[0].content[0].tool_use_id'],
      [{ ...base, tool_choice: { type: 'tool' } }, 'tool_choice.name'],
    ];
    for (const [body, param] of cases) {
      expect(thrown(() => decode(body))).toMatchObject({ kind: 'invalid_request', status: 400, param });
    }
  });
});

describe('request round trip', () => {
  const conversation = {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    system: 'Answer tersely.',
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
    ],
  };

  it('should reproduce text, system, multi-turn and sampling settings', () => {
    const body = { ...conversation, temperature: 0.3, top_p: 0.8, top_k: 20, stop_sequences: ['END'], metadata: { user_id: 'u1' }, stream: true };
    expect(roundTrip(body)).toEqual({ body, warnings: [] });
  });

  it('should reproduce tools with each tool_choice', () => {
    const tools = [{ name: 'get_weather', description: 'Current weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];
    for (const toolChoice of [
      { type: 'auto' },
      { type: 'any' },
      { type: 'tool', name: 'get_weather' },
      { type: 'none' },
      { type: 'any', disable_parallel_tool_use: true },
    ]) {
      const body = { ...conversation, tools, tool_choice: toolChoice };
      expect(roundTrip(body)).toEqual({ body, warnings: [] });
    }
  });

  it('should reproduce parallel tool_use blocks and their tool_results', () => {
    const body = {
      ...conversation,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Oslo and Bergen?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_A', name: 'get_weather', input: { city: 'Oslo' } },
            { type: 'tool_use', id: 'toolu_B', name: 'get_weather', input: { city: 'Bergen' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_A', content: '3 °C' },
            { type: 'tool_result', tool_use_id: 'toolu_B', content: [{ type: 'text', text: 'offline' }], is_error: true },
            { type: 'text', text: 'Thanks.' },
          ],
        },
      ],
    };
    expect(roundTrip(body)).toEqual({ body, warnings: [] });
  });

  it('should reproduce images and documents', () => {
    const body = {
      ...conversation,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
            { type: 'image', source: { type: 'url', url: 'https://example.test/a.png' } },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' }, title: 'Spec' },
            { type: 'document', source: { type: 'url', url: 'https://example.test/a.pdf' } },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain words, ø' } },
            { type: 'text', text: 'Compare these.' },
          ],
        },
      ],
    };
    expect(roundTrip(body)).toEqual({ body, warnings: [] });
  });

  it('should reproduce signed thinking, redacted thinking and the thinking budget', () => {
    const body = {
      ...conversation,
      max_tokens: 4096,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Greeting.', signature: 'EqQB' },
            { type: 'redacted_thinking', data: 'EmwK' },
            { type: 'text', text: 'Hello.' },
          ],
        },
        { role: 'user', content: [{ type: 'text', text: 'Again' }] },
      ],
      thinking: { type: 'enabled', budget_tokens: 2048 },
    };
    expect(roundTrip(body)).toEqual({ body, warnings: [] });
  });

  it('should reproduce a JSON schema in output_config', () => {
    const body = { ...conversation, output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: { a: { type: 'string' } } } } } };
    expect(roundTrip(body)).toEqual({ body, warnings: [] });
  });

  it('should reproduce extension fields and server tools for a messages upstream', () => {
    const body = {
      ...conversation,
      tools: [
        { name: 'get_weather', input_schema: { type: 'object', properties: {} } },
        { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
      ],
      service_tier: 'standard_only',
      container: 'cntr_1',
    };
    expect(roundTrip(body)).toEqual({ body, warnings: [] });
  });
});

describe('requestFromCanonical', () => {
  const base: CanonicalRequest = { model: 'public', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], stream: false };

  it('should fill max_tokens from the request, then the catalog limit, then 4096', () => {
    expect(requestFromCanonical({ ...base, maxOutputTokens: 300 }, { model: 'up', maxOutputTokens: 8192 }).body.max_tokens).toBe(300);
    expect(requestFromCanonical(base, { model: 'up', maxOutputTokens: 8192 }).body.max_tokens).toBe(8192);
    expect(requestFromCanonical(base, { model: 'up' }).body).toEqual({
      model: 'up',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });
  });

  it('should clamp temperature above 1 instead of rescaling it', () => {
    expect(requestFromCanonical({ ...base, temperature: 1.5 }, { model: 'up' })).toMatchObject({
      body: { temperature: 1 },
      warnings: ['temperature 1.5 was clamped to 1, the messages maximum.'],
    });
  });

  it('should drop non-default sampling settings while thinking, with warnings', () => {
    const encoded = requestFromCanonical(
      { ...base, reasoning: { effort: 'low' }, temperature: 0.5, topP: 0.9, topK: 5, maxOutputTokens: 8000 },
      { model: 'up' },
    );
    expect([encoded.body.thinking, encoded.body.temperature, encoded.body.top_p, encoded.body.top_k, encoded.warnings]).toEqual([
      { type: 'enabled', budget_tokens: 1024 },
      undefined,
      undefined,
      undefined,
      [
        'temperature was dropped: messages requires the default while thinking.',
        'top_p was dropped: messages requires the default while thinking.',
        'top_k was dropped: messages does not allow it while thinking.',
      ],
    ]);
    expect(requestFromCanonical({ ...base, reasoning: { effort: 'low' }, temperature: 1, maxOutputTokens: 8000 }, { model: 'up' }).body.temperature).toBe(1);
  });

  it('should keep sampling settings when a forced tool choice drops thinking', () => {
    const encoded = requestFromCanonical(
      {
        ...base,
        tools: [{ name: 'f', parameters: { type: 'object', properties: {} } }],
        toolChoice: { type: 'tool', name: 'f' },
        reasoning: { effort: 'high' },
        temperature: 0.5,
      },
      { model: 'up' },
    );
    expect([encoded.body.thinking, encoded.body.temperature, encoded.body.tool_choice, encoded.warnings]).toEqual([
      undefined,
      0.5,
      { type: 'tool', name: 'f' },
      ['Reasoning was dropped: messages does not allow thinking while a tool choice is forced.'],
    ]);
  });

  it('should send a JSON schema as output_config.format and warn on schemaless JSON mode', () => {
    const schema = { type: 'object', properties: {} };
    expect(requestFromCanonical({ ...base, responseFormat: { type: 'json-schema', name: 'x', schema } }, { model: 'up' }).body.output_config).toEqual({
      format: { type: 'json_schema', schema },
    });
    expect(requestFromCanonical({ ...base, responseFormat: { type: 'json' } }, { model: 'up' })).toMatchObject({
      warnings: ['JSON mode was dropped: messages has no JSON mode without a schema.'],
    });
  });

  it('should map user, stop sequences and streaming, and warn on settings messages lacks', () => {
    const encoded = requestFromCanonical(
      { ...base, user: 'u1', stopSequences: ['END'], stream: true, seed: 7, presencePenalty: 0.5, outputModalities: ['text'] },
      { model: 'up' },
    );
    expect(encoded).toEqual({
      body: {
        model: 'up',
        max_tokens: 4096,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
        stop_sequences: ['END'],
        metadata: { user_id: 'u1' },
        stream: true,
      },
      warnings: [
        'seed was dropped: messages has no such setting.',
        'presence penalty was dropped: messages has no such setting.',
      ],
    });
  });

  it('should refuse image or audio output, which a messages model cannot produce', () => {
    for (const modality of ['image', 'audio'] as const) {
      expect(thrown(() => requestFromCanonical({ ...base, outputModalities: ['text', modality] }, { model: 'up' }))).toMatchObject({
        kind: 'invalid_request',
        message: expect.stringContaining('text only'),
      });
    }
  });

  it('should refuse more than one choice and not copy extensions of another format', () => {
    expect(thrown(() => requestFromCanonical({ ...base, n: 2 }, { model: 'up' }))).toMatchObject({ kind: 'invalid_request', param: 'n' });
    expect(requestFromCanonical({ ...base, extensions: { format: 'chat-completions', fields: { service_tier: 'flex' } } }, { model: 'up' }).body).not.toHaveProperty(
      'service_tier',
    );
  });
});
