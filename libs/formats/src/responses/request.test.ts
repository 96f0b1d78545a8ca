import { GatewayError, type CanonicalRequest } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { requestFromCanonical, requestToCanonical } from './request.ts';

const target = { model: 'gpt-4.1-2025-04-14' };

function decode(body: Record<string, unknown>): CanonicalRequest {
  return requestToCanonical({ model: 'fast-chat', ...body }, {});
}

function encode(request: Partial<CanonicalRequest>): ReturnType<typeof requestFromCanonical> {
  return requestFromCanonical({ model: 'fast-chat', messages: [], stream: false, ...request }, target);
}

function decodeError(body: Record<string, unknown>): GatewayError {
  try {
    decode(body);
  } catch (error) {
    if (GatewayError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected the body to be rejected');
}

const weatherTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: true,
};

describe('requestToCanonical', () => {
  it('should decode a string input with instructions into a leading system message', () => {
    expect(decode({ input: 'Hello', instructions: 'Answer tersely.', stream: true })).toEqual({
      model: 'fast-chat',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Answer tersely.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Hello' }] },
      ],
      stream: true,
      store: true,
    });
  });

  it('should decode message items with and without type, every role and every content part', () => {
    const request = decode({
      input: [
        { role: 'developer', content: 'Be brief.' },
        { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'No jokes.' }] },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is in these?' },
            { type: 'input_image', image_url: 'https://example.test/a.png', detail: 'low' },
            { type: 'input_image', image_url: 'data:image/png;base64,iVBO' },
            { type: 'input_image', file_id: 'file-img' },
            { type: 'input_file', filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBE' },
            { type: 'input_file', file_url: 'https://example.test/b.pdf' },
            { type: 'input_file', file_id: 'file-doc' },
          ],
        },
        {
          type: 'message',
          role: 'assistant',
          content: [
            { type: 'output_text', text: 'Checking.', annotations: [] },
            { type: 'refusal', refusal: 'Not that part.' },
          ],
        },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] },
      { role: 'system', content: [{ type: 'text', text: 'No jokes.' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these?' },
          { type: 'image', source: { kind: 'url', url: 'https://example.test/a.png' }, detail: 'low' },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } },
          { type: 'image', source: { kind: 'file-id', fileId: 'file-img' } },
          { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBE' }, filename: 'a.pdf' },
          { type: 'file', source: { kind: 'url', url: 'https://example.test/b.pdf' } },
          { type: 'file', source: { kind: 'file-id', fileId: 'file-doc' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'refusal', text: 'Not that part.' },
        ],
      },
    ]);
  });

  it('should join one turn of reasoning, text and parallel calls into one assistant message and the outputs into one tool message', () => {
    const request = decode({
      input: [
        { role: 'user', content: 'Weather in Oslo and Bergen?' },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Two lookups.' }, { type: 'summary_text', text: 'In parallel.' }], encrypted_content: 'gAAA' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking both.' }] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        { type: 'function_call', id: 'fc_2', call_id: 'call_b', name: 'get_weather', arguments: '{"city":"Bergen"}' },
        { type: 'function_call_output', call_id: 'call_a', output: '{"temp_c":3}' },
        {
          type: 'function_call_output',
          call_id: 'call_b',
          output: [
            { type: 'input_text', text: 'see chart' },
            { type: 'input_image', image_url: 'https://example.test/chart.png' },
          ],
        },
        { role: 'user', content: 'Thanks.' },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo and Bergen?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Two lookups.\n\nIn parallel.', id: 'rs_1', signature: { origin: 'responses', value: 'gAAA' } },
          { type: 'text', text: 'Checking both.' },
          { type: 'tool-call', id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          { type: 'tool-call', id: 'call_b', name: 'get_weather', arguments: '{"city":"Bergen"}' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', callId: 'call_a', name: 'get_weather', content: '{"temp_c":3}' },
          {
            type: 'tool-result',
            callId: 'call_b',
            name: 'get_weather',
            content: [
              { type: 'text', text: 'see chart' },
              { type: 'image', source: { kind: 'url', url: 'https://example.test/chart.png' } },
            ],
          },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Thanks.' }] },
    ]);
  });

  it('should fall back to reasoning_text content when a reasoning item has no summary', () => {
    const request = decode({
      input: [{ type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'raw thoughts' }] }],
    });
    expect(request.messages).toEqual([{ role: 'assistant', content: [{ type: 'reasoning', text: 'raw thoughts' }] }]);
  });

  it('should decode sampling, limits, tools, text format, reasoning and state fields', () => {
    const request = decode({
      input: 'hi',
      max_output_tokens: 512,
      temperature: 0.2,
      top_p: 0.9,
      tools: [weatherTool, { type: 'function', name: 'now' }],
      tool_choice: { type: 'function', name: 'get_weather' },
      parallel_tool_calls: false,
      text: { format: { type: 'json_schema', name: 'weather', schema: { type: 'object' }, strict: true } },
      reasoning: { effort: 'low', summary: 'auto' },
      store: false,
      previous_response_id: 'resp_prev',
      metadata: { team: 'a' },
      safety_identifier: 'user-42',
    });
    expect(request).toEqual({
      model: 'fast-chat',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      stream: false,
      store: false,
      previousResponseId: 'resp_prev',
      maxOutputTokens: 512,
      temperature: 0.2,
      topP: 0.9,
      tools: [
        {
          name: 'get_weather',
          description: 'Current weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          strict: true,
        },
        { name: 'now', parameters: { type: 'object', properties: {} } },
      ],
      toolChoice: { type: 'tool', name: 'get_weather' },
      parallelToolCalls: false,
      responseFormat: { type: 'json-schema', name: 'weather', schema: { type: 'object' }, strict: true },
      reasoning: { effort: 'low', includeThoughts: true },
      metadata: { team: 'a' },
      user: 'user-42',
      extensions: { format: 'responses', fields: { reasoning: { summary: 'auto' } } },
    });
  });

  it('should decode tool_choice strings and allowed_tools', () => {
    expect(decode({ tool_choice: 'required' }).toolChoice).toEqual({ type: 'required' });
    const allowed = decode({
      tools: [weatherTool],
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'get_weather' }] },
    });
    expect([allowed.toolChoice, allowed.allowedTools]).toEqual([{ type: 'required' }, ['get_weather']]);
  });

  it('should keep hosted tools, hosted selectors and unknown fields in extensions', () => {
    const request = decode({
      input: 'hi',
      tools: [weatherTool, { type: 'web_search' }],
      tool_choice: { type: 'file_search' },
      text: { format: { type: 'json_object' }, verbosity: 'low' },
      include: ['reasoning.encrypted_content'],
      truncation: 'auto',
      prompt_cache_key: 'k1',
      service_tier: 'flex',
      user: 'legacy-user',
      safety_identifier: 'user-42',
    });
    expect([request.tools?.map((tool) => tool.name), request.toolChoice, request.responseFormat, request.user]).toEqual([
      ['get_weather'],
      undefined,
      { type: 'json' },
      'user-42',
    ]);
    expect(request.extensions).toEqual({
      format: 'responses',
      fields: {
        include: ['reasoning.encrypted_content'],
        truncation: 'auto',
        prompt_cache_key: 'k1',
        service_tier: 'flex',
        tools: [{ type: 'web_search' }],
        tool_choice: { type: 'file_search' },
        text: { verbosity: 'low' },
        user: 'legacy-user',
      },
    });
  });

  it('should take the model and stream flag from the context over the body', () => {
    const request = requestToCanonical({ model: 'body-model', input: 'hi', stream: false }, { model: 'url-model', stream: true });
    expect([request.model, request.stream]).toEqual(['url-model', true]);
  });

  it.each([
    [{ temperature: 2.5 }, 'temperature'],
    [{ temperature: -0.1 }, 'temperature'],
    [{ top_p: 1.5 }, 'top_p'],
    [{ max_output_tokens: 0 }, 'max_output_tokens'],
    [{ input: [{ role: 'user', content: 'a' }, { type: 'function_call', call_id: 'c', name: 'n' }] }, 'input[1].arguments'],
    [{ input: [{ role: 'user', content: [{ type: 'input_text' }] }] }, 'input[0].content[0].text'],
    [{ input: [{ role: 'robot', content: 'a' }] }, 'input[0].role'],
    [{ tools: [{ type: 'function' }] }, 'tools[0].name'],
  ])('should reject %j with a 400 naming %s', (body, param) => {
    const error = decodeError(body);
    expect([error.kind, error.status, error.param]).toEqual(['invalid_request', 400, param]);
  });

  it.each(['item_reference', 'web_search_call', 'computer_call_output'])('should reject a %s input item naming its index', (type) => {
    const error = decodeError({ input: [{ role: 'user', content: 'a' }, { type, id: 'x' }] });
    expect([error.status, error.param]).toEqual([400, 'input[1]']);
    expect(error.message).toContain(`'${type}'`);
  });

  it('should reject a body without a model', () => {
    expect(() => requestToCanonical({ input: 'hi' }, {})).toThrow(expect.objectContaining({ param: 'model', status: 400 }));
  });

  it('should accept temperature and top_p at their bounds', () => {
    expect(decode({ temperature: 2, top_p: 0 })).toMatchObject({ temperature: 2, topP: 0 });
  });
});

describe('requestFromCanonical', () => {
  it('should keep system and developer messages in place as message items and never send store or previous_response_id', () => {
    const { body, warnings } = encode({
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'developer', content: [{ type: 'text', text: 'Now in French.' }] },
      ],
      store: false,
      previousResponseId: 'resp_prev',
      stream: true,
    });
    expect(body).toEqual({
      model: 'gpt-4.1-2025-04-14',
      input: [
        { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'Be brief.' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Now in French.' }] },
      ],
      stream: true,
    });
    expect(warnings).toEqual([]);
  });

  it('should split an assistant turn into reasoning, message and function_call items and results into outputs', () => {
    const longId = `toolu_${'x'.repeat(80)}`;
    const { body } = encode({
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Two lookups.', id: 'rs_1', signature: { origin: 'responses', value: 'gAAA' } },
            { type: 'reasoning', text: 'Foreign thinking.', signature: { origin: 'messages', value: 'EqQB' } },
            { type: 'text', text: 'Checking.' },
            { type: 'tool-call', id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo"}' },
            { type: 'tool-call', id: longId, name: 'get_weather', arguments: '{"city":"Bergen"}' },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', callId: 'call_a', content: [{ type: 'text', text: '3' }, { type: 'text', text: 'C' }] },
            {
              type: 'tool-result',
              callId: longId,
              content: [
                { type: 'text', text: 'chart' },
                { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } },
              ],
            },
          ],
        },
      ],
    });
    const input = body['input'] as Array<Record<string, unknown>>;
    const mappedId = input[3]?.['call_id'];
    expect(typeof mappedId === 'string' && mappedId.length <= 64 && mappedId !== longId).toBe(true);
    expect(input).toEqual([
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Two lookups.' }], encrypted_content: 'gAAA' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.', annotations: [] }] },
      { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { type: 'function_call', call_id: mappedId, name: 'get_weather', arguments: '{"city":"Bergen"}' },
      { type: 'function_call_output', call_id: 'call_a', output: '3\nC' },
      {
        type: 'function_call_output',
        call_id: mappedId,
        output: [
          { type: 'input_text', text: 'chart' },
          { type: 'input_image', detail: 'auto', image_url: 'data:image/png;base64,iVBO' },
        ],
      },
    ]);
  });

  it('should encode images and files from every source', () => {
    const { body } = encode({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { kind: 'url', url: 'https://example.test/a.png' }, detail: 'high' },
            { type: 'image', source: { kind: 'file-id', fileId: 'file-img' } },
            { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBE' } },
            { type: 'file', source: { kind: 'url', url: 'https://example.test/b.pdf' }, filename: 'b.pdf' },
            { type: 'file', source: { kind: 'file-id', fileId: 'file-doc' } },
          ],
        },
      ],
    });
    expect(body['input']).toEqual([
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_image', detail: 'high', image_url: 'https://example.test/a.png' },
          { type: 'input_image', detail: 'auto', file_id: 'file-img' },
          { type: 'input_file', filename: 'document.pdf', file_data: 'data:application/pdf;base64,JVBE' },
          { type: 'input_file', filename: 'b.pdf', file_url: 'https://example.test/b.pdf' },
          { type: 'input_file', file_id: 'file-doc' },
        ],
      },
    ]);
  });

  it('should encode tools flat with explicit strict, tool_choice variants, format and reasoning', () => {
    const { body } = encode({
      tools: [{ name: 'get_weather', description: 'Current weather', parameters: { type: 'object' } }, { name: 'now', parameters: {}, strict: true }],
      toolChoice: { type: 'required' },
      allowedTools: ['get_weather'],
      parallelToolCalls: false,
      temperature: 0.5,
      topP: 0.8,
      maxOutputTokens: 1024,
      responseFormat: { type: 'json-schema', schema: { type: 'object' } },
      reasoning: { budgetTokens: 9000, includeThoughts: true },
      metadata: { team: 'a' },
      user: 'user-42',
    });
    expect(body).toEqual({
      model: 'gpt-4.1-2025-04-14',
      input: [],
      stream: false,
      max_output_tokens: 1024,
      temperature: 0.5,
      top_p: 0.8,
      tools: [
        { type: 'function', name: 'get_weather', description: 'Current weather', parameters: { type: 'object' }, strict: false },
        { type: 'function', name: 'now', parameters: {}, strict: true },
      ],
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'get_weather' }] },
      parallel_tool_calls: false,
      text: { format: { type: 'json_schema', name: 'response', schema: { type: 'object' } } },
      reasoning: { effort: 'medium', summary: 'auto' },
      metadata: { team: 'a' },
      safety_identifier: 'user-42',
    });
  });

  it.each([
    [{ type: 'auto' }, 'auto'],
    [{ type: 'none' }, 'none'],
    [{ type: 'required' }, 'required'],
    [{ type: 'tool', name: 'get_weather' }, { type: 'function', name: 'get_weather' }],
  ] as const)('should encode tool choice %j as %j', (toolChoice, expected) => {
    expect(encode({ toolChoice }).body['tool_choice']).toEqual(expected);
  });

  it('should raise max_output_tokens below 16 and drop stop, seed, top_k and penalties with warnings', () => {
    const { body, warnings } = encode({
      maxOutputTokens: 5,
      stopSequences: ['END'],
      seed: 7,
      topK: 40,
      presencePenalty: 0.5,
      n: 1,
    });
    expect(body['max_output_tokens']).toBe(16);
    expect(['stop', 'seed', 'top_k'].every((name) => body[name] === undefined)).toBe(true);
    expect(warnings).toEqual([
      'max_output_tokens raised from 5 to 16, the Responses API minimum.',
      'stop was dropped: the Responses API has no stop sequences.',
      'top_k was dropped: the Responses API has no top_k.',
      'seed was dropped: the Responses API has no seed.',
      'presence/frequency penalties were dropped: the Responses API has none.',
    ]);
  });

  it('should reject n > 1 and audio input rather than answer something else', () => {
    expect(() => encode({ n: 2 })).toThrow(expect.objectContaining({ kind: 'invalid_request', param: 'n' }));
    expect(() =>
      encode({ messages: [{ role: 'user', content: [{ type: 'audio', data: 'UklG', mediaType: 'audio/wav' }] }] }),
    ).toThrow(expect.objectContaining({ kind: 'invalid_request', param: 'messages[0]' }));
  });

  it('should reject image or audio output, which a Responses model cannot produce through modalities', () => {
    for (const modality of ['image', 'audio'] as const) {
      expect(() => encode({ outputModalities: ['text', modality] })).toThrow(
        expect.objectContaining({ kind: 'invalid_request', message: expect.stringContaining('text only') }),
      );
    }
    expect(encode({ outputModalities: ['text'] }).warnings).toEqual([]);
  });

  it('should copy extensions only from a responses client', () => {
    const fields = { include: ['reasoning.encrypted_content'], service_tier: 'flex' };
    expect(encode({ extensions: { format: 'responses', fields } }).body).toMatchObject(fields);
    expect(encode({ extensions: { format: 'chat-completions', fields } }).body['service_tier']).toBeUndefined();
  });
});

describe('responses request round trip', () => {
  it.each([
    ['text with instructions', { input: 'Hello', instructions: 'Answer tersely.' }],
    [
      'multi-turn with tools, parallel calls and outputs',
      {
        input: [
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather?' }] },
          { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          { type: 'function_call', call_id: 'call_b', name: 'get_weather', arguments: '{"city":"Bergen"}' },
          { type: 'function_call_output', call_id: 'call_a', output: '3' },
          { type: 'function_call_output', call_id: 'call_b', output: '5' },
        ],
        tools: [{ ...weatherTool, strict: false }],
        tool_choice: 'auto',
        parallel_tool_calls: true,
      },
    ],
    [
      'reasoning with encrypted content, images and a JSON schema',
      {
        input: [
          {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: 'Describe.' },
              { type: 'input_image', detail: 'auto', image_url: 'data:image/png;base64,iVBO' },
            ],
          },
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Look closely.' }], encrypted_content: 'gAAA' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'A cat.', annotations: [] }] },
        ],
        text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true }, verbosity: 'low' },
        reasoning: { effort: 'high', summary: 'detailed' },
        include: ['reasoning.encrypted_content'],
      },
    ],
  ])('should reproduce %s', (_name, body) => {
    const { body: encoded, warnings } = requestFromCanonical(requestToCanonical({ model: 'fast-chat', ...body }, {}), {
      model: 'fast-chat',
    });
    const expectedInput =
      typeof body.input === 'string'
        ? [
            { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'Answer tersely.' }] },
            { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello' }] },
          ]
        : body.input;
    const { instructions: _instructions, ...rest } = body as Record<string, unknown>;
    expect(encoded).toEqual({ model: 'fast-chat', stream: false, ...rest, input: expectedInput });
    expect(warnings).toEqual([]);
  });
});
