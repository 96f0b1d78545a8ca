import type { CanonicalRequest } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { caught } from '../testing/test-support.ts';
import { requestFromCanonical, requestToCanonical } from './request.ts';

const context = { model: 'gemini-2.5-flash', stream: false };

function roundTrip(body: Record<string, unknown>): Record<string, unknown> {
  return requestFromCanonical(requestToCanonical(body, context)).body;
}

function canonical(overrides: Partial<CanonicalRequest>): CanonicalRequest {
  return { model: 'fast-chat', stream: false, messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], ...overrides };
}

const weatherTool = {
  functionDeclarations: [
    {
      name: 'get_weather',
      description: 'Current weather',
      parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
    },
  ],
};

describe('requestToCanonical', () => {
  it('should read the model and streaming from the URL context', () => {
    const request = requestToCanonical({ contents: [{ parts: [{ text: 'Hi' }] }] }, { model: 'gemini-2.5-pro', stream: true });
    expect(request).toEqual({
      model: 'gemini-2.5-pro',
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });
  });

  it('should decode systemInstruction into a leading system message and model turns into assistant messages', () => {
    const request = requestToCanonical(
      {
        systemInstruction: { parts: [{ text: 'Answer tersely.' }] },
        contents: [
          { role: 'user', parts: [{ text: 'Hi' }] },
          { role: 'model', parts: [{ text: 'Hello.' }] },
          { parts: [{ text: 'Bye' }] },
        ],
      },
      context,
    );
    expect(request.messages).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'Answer tersely.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Bye' }] },
    ]);
  });

  it('should synthesise call ids and match id-less function responses to calls by name', () => {
    const request = requestToCanonical(
      {
        contents: [
          { role: 'user', parts: [{ text: 'Weather and time in Oslo?' }] },
          {
            role: 'model',
            parts: [
              { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } },
              { functionCall: { name: 'get_time', args: { city: 'Oslo' } } },
            ],
          },
          {
            role: 'user',
            parts: [
              { functionResponse: { name: 'get_time', response: { output: '12:00' } } },
              { functionResponse: { name: 'get_weather', response: { temp_c: 3 } } },
              { text: 'Thanks.' },
            ],
          },
        ],
      },
      context,
    );
    const [, assistant, tool, user] = request.messages;
    const [weatherCall, timeCall] = assistant!.content;
    expect(weatherCall).toEqual({ type: 'tool-call', id: expect.stringMatching(/^call_[0-9a-f]{24}$/), name: 'get_weather', arguments: '{"city":"Oslo"}' });
    expect(timeCall).toEqual({ type: 'tool-call', id: expect.stringMatching(/^call_/), name: 'get_time', arguments: '{"city":"Oslo"}' });
    expect(weatherCall).not.toEqual(timeCall);
    expect(tool).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', callId: (timeCall as { id: string }).id, name: 'get_time', content: '12:00' },
        { type: 'tool-result', callId: (weatherCall as { id: string }).id, name: 'get_weather', content: '{"temp_c":3}' },
      ],
    });
    expect(user).toEqual({ role: 'user', content: [{ type: 'text', text: 'Thanks.' }] });
  });

  it('should decode an error response as an error tool result', () => {
    const request = requestToCanonical(
      {
        contents: [
          { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'get_weather', args: {} } }] },
          { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'get_weather', response: { error: 'city unknown' } } }] },
        ],
      },
      context,
    );
    expect(request.messages[1]).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', callId: 'c1', name: 'get_weather', content: 'city unknown', isError: true }],
    });
  });

  it('should tell the media type of a fileData URL without mimeType from its extension', () => {
    const request = requestToCanonical(
      {
        contents: [
          {
            role: 'user',
            parts: [
              { fileData: { fileUri: 'https://example.test/cat.PNG?size=2' } },
              { fileData: { fileUri: 'https://example.test/spec.pdf' } },
              { fileData: { fileUri: 'https://example.test/render?id=7' } },
              { fileData: { fileUri: 'files/abc123' } },
            ],
          },
        ],
      },
      context,
    );
    expect(request.messages[0]?.content).toEqual([
      { type: 'image', source: { kind: 'url', url: 'https://example.test/cat.PNG?size=2', mediaType: 'image/png' } },
      { type: 'file', source: { kind: 'url', url: 'https://example.test/spec.pdf', mediaType: 'application/pdf' } },
      { type: 'file', source: { kind: 'url', url: 'https://example.test/render?id=7' } },
      { type: 'file', source: { kind: 'file-id', fileId: 'files/abc123' } },
    ]);
  });

  it('should decode media parts by mime type and keep thought signatures with their origin', () => {
    const request = requestToCanonical(
      {
        contents: [
          {
            role: 'user',
            parts: [
              { inlineData: { mimeType: 'image/png', data: 'iVBO' } },
              { inlineData: { mimeType: 'audio/wav', data: 'UklG' } },
              { inlineData: { mimeType: 'application/pdf', data: 'JVBE' } },
              { fileData: { mimeType: 'application/pdf', fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc' } },
              { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.test/a.jpg' } },
            ],
          },
          {
            role: 'model',
            parts: [
              { text: 'Planning.', thought: true, thoughtSignature: 'sig-a' },
              { text: 'Done.' },
              { text: '', thoughtSignature: 'sig-b' },
            ],
          },
        ],
      },
      context,
    );
    expect(request.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } },
          { type: 'audio', mediaType: 'audio/wav', data: 'UklG' },
          { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBE' } },
          {
            type: 'file',
            source: { kind: 'file-id', fileId: 'https://generativelanguage.googleapis.com/v1beta/files/abc', mediaType: 'application/pdf' },
          },
          { type: 'image', source: { kind: 'url', url: 'https://example.test/a.jpg', mediaType: 'image/jpeg' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Planning.', signature: { origin: 'generate-content', value: 'sig-a' } },
          { type: 'text', text: 'Done.' },
          { type: 'text', text: '', signature: { origin: 'generate-content', value: 'sig-b' } },
        ],
      },
    ]);
  });

  it('should read legacy function turns, multimodal function responses and code execution parts', () => {
    const request = requestToCanonical(
      {
        contents: [
          {
            role: 'model',
            parts: [
              { executableCode: { language: 'PYTHON', code: 'print(1)' } },
              { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1' } },
              { functionCall: { id: 'c1', name: 'snapshot', args: {} } },
            ],
          },
          {
            role: 'function',
            parts: [
              {
                functionResponse: {
                  id: 'c1',
                  name: 'snapshot',
                  response: { output: 'see image' },
                  parts: [{ inlineData: { mimeType: 'image/png', data: 'iVBO' } }],
                },
              },
            ],
          },
        ],
      },
      context,
    );
    expect(request.messages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: '```python\nprint(1)\n```' },
          { type: 'text', text: '1' },
          { type: 'tool-call', id: 'c1', name: 'snapshot', arguments: '{}' },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            callId: 'c1',
            name: 'snapshot',
            content: [
              { type: 'text', text: 'see image' },
              { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } },
            ],
          },
        ],
      },
    ]);
  });

  it('should map function declarations to JSON Schema tools and hosted tools to extensions', () => {
    const request = requestToCanonical(
      {
        contents: [{ parts: [{ text: 'Hi' }] }],
        tools: [
          weatherTool,
          { functionDeclarations: [{ name: 'ping' }, { name: 'lookup', parametersJsonSchema: { type: 'object', properties: { q: { type: 'string' } } } }] },
          { googleSearch: {} },
        ],
      },
      context,
    );
    expect(request.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Current weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
      { name: 'ping', parameters: { type: 'object', properties: {} } },
      { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
    ]);
    expect(request.extensions).toEqual({ format: 'generate-content', fields: { tools: [{ googleSearch: {} }] } });
  });

  it('should map every function calling mode to a tool choice', () => {
    const choice = (functionCallingConfig: Record<string, unknown>) => {
      const { toolChoice, allowedTools } = requestToCanonical(
        { contents: [{ parts: [{ text: 'Hi' }] }], tools: [weatherTool], toolConfig: { functionCallingConfig } },
        context,
      );
      return { toolChoice, allowedTools };
    };
    expect(choice({ mode: 'AUTO' })).toEqual({ toolChoice: { type: 'auto' }, allowedTools: undefined });
    expect(choice({ mode: 'NONE' })).toEqual({ toolChoice: { type: 'none' }, allowedTools: undefined });
    expect(choice({ mode: 'ANY' })).toEqual({ toolChoice: { type: 'required' }, allowedTools: undefined });
    expect(choice({ mode: 'ANY', allowedFunctionNames: ['get_weather'] })).toEqual({
      toolChoice: { type: 'tool', name: 'get_weather' },
      allowedTools: undefined,
    });
    expect(choice({ mode: 'ANY', allowedFunctionNames: ['a', 'b'] })).toEqual({ toolChoice: { type: 'required' }, allowedTools: ['a', 'b'] });
  });

  it('should map generationConfig to canonical settings and keep the rest as extensions', () => {
    const request = requestToCanonical(
      {
        contents: [{ parts: [{ text: 'Hi' }] }],
        generationConfig: {
          temperature: 0.7,
          topP: 0.95,
          topK: 40,
          candidateCount: 1,
          maxOutputTokens: 1024,
          stopSequences: ['END'],
          presencePenalty: 0.5,
          frequencyPenalty: -0.5,
          seed: 7,
          responseMimeType: 'application/json',
          responseSchema: { type: 'OBJECT', properties: { n: { type: 'INTEGER', nullable: true } } },
          thinkingConfig: { thinkingLevel: 'HIGH', includeThoughts: true },
          responseModalities: ['TEXT', 'IMAGE'],
          imageConfig: { aspectRatio: '16:9' },
        },
        safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_ONLY_HIGH' }],
        cachedContent: 'cachedContents/abc',
      },
      context,
    );
    expect(request).toEqual({
      model: 'gemini-2.5-flash',
      stream: false,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      temperature: 0.7,
      topP: 0.95,
      topK: 40,
      n: 1,
      maxOutputTokens: 1024,
      stopSequences: ['END'],
      presencePenalty: 0.5,
      frequencyPenalty: -0.5,
      seed: 7,
      responseFormat: { type: 'json-schema', schema: { type: 'object', properties: { n: { type: ['integer', 'null'] } } } },
      reasoning: { effort: 'high', includeThoughts: true },
      outputModalities: ['text', 'image'],
      extensions: {
        format: 'generate-content',
        fields: {
          safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_ONLY_HIGH' }],
          cachedContent: 'cachedContents/abc',
          generationConfig: { imageConfig: { aspectRatio: '16:9' } },
        },
      },
    });
  });

  it('should read budgets, including dynamic (-1) and none (0)', () => {
    const reasoning = (thinkingBudget: number) =>
      requestToCanonical({ contents: [{ parts: [{ text: 'Hi' }] }], generationConfig: { thinkingConfig: { thinkingBudget } } }, context).reasoning;
    expect(reasoning(-1)).toEqual({ budgetTokens: -1 });
    expect(reasoning(0)).toEqual({ budgetTokens: 0 });
  });

  it('should accept the snake_case spellings of Google REST samples', () => {
    const request = requestToCanonical(
      {
        system_instruction: { parts: { text: 'Be brief.' } },
        contents: [{ role: 'user', parts: [{ inline_data: { mime_type: 'image/png', data: 'iVBO' } }] }],
        generation_config: { max_output_tokens: 64, thinking_config: { thinking_budget: 0 } },
      },
      context,
    );
    expect(request.messages).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
      { role: 'user', content: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } }] },
    ]);
    expect(request.maxOutputTokens).toBe(64);
    expect(request.reasoning).toEqual({ budgetTokens: 0 });
  });

  it('should answer out-of-bounds values with a 400 naming the param', () => {
    const param = (body: Record<string, unknown>) => {
      const error = caught(() => requestToCanonical(body, context));
      return { status: error.status, param: error.param };
    };
    const contents = [{ parts: [{ text: 'Hi' }] }];
    expect(param({ contents, generationConfig: { temperature: 2.5 } })).toEqual({ status: 400, param: 'generationConfig.temperature' });
    expect(param({ contents, generationConfig: { topP: 1.5 } })).toEqual({ status: 400, param: 'generationConfig.topP' });
    expect(param({ contents, generationConfig: { candidateCount: 0 } })).toEqual({ status: 400, param: 'generationConfig.candidateCount' });
    expect(param({ contents: [] })).toEqual({ status: 400, param: 'contents' });
    expect(param({})).toEqual({ status: 400, param: 'contents' });
    expect(param({ contents: [{ role: 'system', parts: [{ text: 'x' }] }] })).toEqual({ status: 400, param: 'contents[0].role' });
    expect(param({ contents: [{ parts: [{ videoMetadata: {} }] }] })).toEqual({ status: 400, param: 'contents[0].parts[0]' });
  });

  it('should require the model from the URL', () => {
    expect(caught(() => requestToCanonical({ contents: [{ parts: [{ text: 'Hi' }] }] }, {})).param).toBe('model');
  });
});

describe('requestFromCanonical', () => {
  it('should hoist system and developer messages into systemInstruction joined by blank lines', () => {
    const { body } = requestFromCanonical(
      canonical({
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
          { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
          { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
        ],
      }),
    );
    expect(body).toEqual({
      systemInstruction: { parts: [{ text: 'Be brief.\n\nUse metric units.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
    });
  });

  it('should merge consecutive same-role turns and open with a user turn', () => {
    const { body, warnings } = requestFromCanonical(
      canonical({
        messages: [
          { role: 'assistant', content: [{ type: 'text', text: 'Welcome.' }] },
          { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
          { role: 'user', content: [{ type: 'text', text: 'Anyone?' }] },
        ],
      }),
    );
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: '.' }] },
      { role: 'model', parts: [{ text: 'Welcome.' }] },
      { role: 'user', parts: [{ text: 'Hi' }, { text: 'Anyone?' }] },
    ]);
    expect(warnings).toHaveLength(1);
  });

  it('should send tool results as a user turn of exactly the function responses, names looked up by call id', () => {
    const { body } = requestFromCanonical(
      canonical({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo and Bergen?' }] },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: '' },
              { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
              { type: 'tool-call', id: 'call_2', name: 'get_weather', arguments: '' },
            ],
          },
          { role: 'tool', content: [{ type: 'tool-result', callId: 'call_1', content: '{"temp_c":3}' }] },
          { role: 'tool', content: [{ type: 'tool-result', callId: 'call_2', content: 'no data', isError: true }] },
          { role: 'user', content: [{ type: 'text', text: 'And tomorrow?' }] },
        ],
      }),
    );
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Oslo and Bergen?' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Oslo' } } },
          { functionCall: { id: 'call_2', name: 'get_weather', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'call_1', name: 'get_weather', response: { temp_c: 3 } } },
          { functionResponse: { id: 'call_2', name: 'get_weather', response: { error: 'no data' } } },
        ],
      },
      { role: 'user', parts: [{ text: 'And tomorrow?' }] },
    ]);
  });

  it('should wrap non-object results as output and fail without a name to send', () => {
    const messages: CanonicalRequest['messages'] = [
      { role: 'assistant', content: [{ type: 'tool-call', id: 'call_1', name: 'count', arguments: '{}' }] },
      { role: 'tool', content: [{ type: 'tool-result', callId: 'call_1', content: '[1,2]' }] },
    ];
    expect(requestFromCanonical(canonical({ messages })).body.contents).toEqual([
      { role: 'user', parts: [{ text: '.' }] },
      { role: 'model', parts: [{ functionCall: { id: 'call_1', name: 'count', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { id: 'call_1', name: 'count', response: { output: '[1,2]' } } }] },
    ]);
    const orphan = canonical({ messages: [{ role: 'tool', content: [{ type: 'tool-result', callId: 'call_9', content: 'x' }] }] });
    expect(caught(() => requestFromCanonical(orphan)).param).toBe('messages[0].content[0]');
  });

  it('should replay signatures only to their own vendor and drop empty parts and the turns they empty', () => {
    const { body } = requestFromCanonical(
      canonical({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Go' }] },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'Thinking.', signature: { origin: 'messages', value: 'anthropic-sig' } },
              { type: 'reasoning', text: '', signature: { origin: 'messages', value: 'anthropic-sig' } },
              { type: 'tool-call', id: 'c1', name: 'go', arguments: '{}', signature: { origin: 'generate-content', value: 'g-sig' } },
              { type: 'tool-call', id: 'c2', name: 'go', arguments: '{}', signature: { origin: 'responses', value: 'enc' } },
            ],
          },
          { role: 'user', content: [{ type: 'text', text: '' }] },
        ],
      }),
    );
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Go' }] },
      {
        role: 'model',
        parts: [
          { text: 'Thinking.', thought: true },
          { functionCall: { id: 'c1', name: 'go', args: {} }, thoughtSignature: 'g-sig' },
          { functionCall: { id: 'c2', name: 'go', args: {} } },
        ],
      },
    ]);
  });

  it('should send media in tool results as multimodal function response parts and warn about image detail', () => {
    const { body, warnings } = requestFromCanonical(
      canonical({
        messages: [
          {
            role: 'user',
            content: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' }, detail: 'low' }],
          },
          { role: 'assistant', content: [{ type: 'tool-call', id: 'c1', name: 'snapshot', arguments: '{}' }] },
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                callId: 'c1',
                content: [
                  { type: 'text', text: 'see image' },
                  { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } },
                ],
              },
            ],
          },
        ],
      }),
    );
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] },
      { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'snapshot', args: {} } }] },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'c1',
              name: 'snapshot',
              response: { output: 'see image' },
              parts: [{ inlineData: { mimeType: 'image/png', data: 'iVBO' } }],
            },
          },
        ],
      },
    ]);
    expect(warnings).toEqual(['generate-content has no per-image detail; detail was dropped.']);
  });

  it('should send image URLs as fileData when the media type is known and refuse them otherwise', () => {
    const image = (url: string) =>
      canonical({ messages: [{ role: 'user', content: [{ type: 'image', source: { kind: 'url', url } }] }] });
    expect(requestFromCanonical(image('https://example.test/cat.PNG?size=2')).body.contents).toEqual([
      { role: 'user', parts: [{ fileData: { mimeType: 'image/png', fileUri: 'https://example.test/cat.PNG?size=2' } }] },
    ]);
    expect(requestFromCanonical(image('data:image/gif;base64,R0lG')).body.contents).toEqual([
      { role: 'user', parts: [{ inlineData: { mimeType: 'image/gif', data: 'R0lG' } }] },
    ]);
    const error = caught(() => requestFromCanonical(image('https://example.test/render')));
    expect({ status: error.status, param: error.param }).toEqual({ status: 400, param: 'messages[0].content[0]' });
    const foreignFile = canonical({ messages: [{ role: 'user', content: [{ type: 'file', source: { kind: 'file-id', fileId: 'file-abc' } }] }] });
    expect(caught(() => requestFromCanonical(foreignFile)).param).toBe('messages[0].content[0]');
  });

  it('should encode the tool choice table of protocols.md §10.3 with sanitised schemas', () => {
    const tools = [
      { name: 'a', description: 'A', parameters: { type: 'object', properties: { x: { type: ['string', 'null'] } }, additionalProperties: false } },
      { name: 'b', parameters: { type: 'object', properties: {} } },
    ];
    const encode = (overrides: Partial<CanonicalRequest>) => {
      const { tools: encoded, toolConfig } = requestFromCanonical(canonical({ tools, ...overrides })).body;
      return { tools: encoded, toolConfig };
    };
    const declarations = [
      { name: 'a', description: 'A', parameters: { type: 'OBJECT', properties: { x: { type: 'STRING', nullable: true } } } },
      { name: 'b' },
    ];
    expect(encode({})).toEqual({ tools: [{ functionDeclarations: declarations }], toolConfig: undefined });
    expect(encode({ toolChoice: { type: 'auto' } }).toolConfig).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(encode({ toolChoice: { type: 'none' } }).toolConfig).toEqual({ functionCallingConfig: { mode: 'NONE' } });
    expect(encode({ toolChoice: { type: 'required' } }).toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    expect(encode({ toolChoice: { type: 'tool', name: 'b' } }).toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['b'] },
    });
    expect(encode({ toolChoice: { type: 'required' }, allowedTools: ['a'] })).toEqual({
      tools: [{ functionDeclarations: declarations }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['a'] } },
    });
    expect(encode({ toolChoice: { type: 'auto' }, allowedTools: ['b'] })).toEqual({
      tools: [{ functionDeclarations: [{ name: 'b' }] }],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
    });
  });

  it('should encode sampling, stop sequences, JSON schema output, reasoning budgets and modalities', () => {
    const { body } = requestFromCanonical(
      canonical({
        temperature: 0.2,
        topP: 0.9,
        topK: 20,
        maxOutputTokens: 500,
        stopSequences: ['END', 'STOP'],
        seed: 3,
        presencePenalty: 0.1,
        frequencyPenalty: 0.2,
        responseFormat: { type: 'json-schema', name: 'out', schema: { type: 'object', additionalProperties: false } },
        reasoning: { effort: 'medium', includeThoughts: true },
        outputModalities: ['text', 'image'],
      }),
    );
    expect(body.generationConfig).toEqual({
      temperature: 0.2,
      topP: 0.9,
      topK: 20,
      maxOutputTokens: 500,
      stopSequences: ['END', 'STOP'],
      seed: 3,
      presencePenalty: 0.1,
      frequencyPenalty: 0.2,
      responseMimeType: 'application/json',
      responseJsonSchema: { type: 'object', additionalProperties: false },
      thinkingConfig: { thinkingBudget: 8192, includeThoughts: true },
      responseModalities: ['TEXT', 'IMAGE'],
    });
    expect(requestFromCanonical(canonical({ responseFormat: { type: 'json' } })).body.generationConfig).toEqual({
      responseMimeType: 'application/json',
    });
  });

  it('should warn about dropped settings, refuse n > 1 and copy only its own extensions', () => {
    const { body, warnings } = requestFromCanonical(
      canonical({
        user: 'u-1',
        parallelToolCalls: false,
        tools: [{ name: 'a', parameters: { type: 'object', properties: {} } }],
        extensions: { format: 'messages', fields: { container: 'x' } },
      }),
    );
    expect(body.container).toBeUndefined();
    expect(warnings).toHaveLength(2);
    expect(caught(() => requestFromCanonical(canonical({ n: 2 }))).param).toBe('n');
  });

  it('should fail when nothing but system text is left to send', () => {
    const error = caught(() => requestFromCanonical(canonical({ messages: [{ role: 'system', content: [{ type: 'text', text: 'x' }] }] })));
    expect(error.param).toBe('messages');
  });
});

describe('generate-content request round trip', () => {
  it('should give back a conversation with system text, parallel calls, responses, images and thoughts', () => {
    const body = {
      systemInstruction: { parts: [{ text: 'Answer tersely.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Oslo and Bergen?' }, { inlineData: { mimeType: 'image/png', data: 'iVBO' } }] },
        {
          role: 'model',
          parts: [
            { text: 'Two lookups.', thought: true, thoughtSignature: 'sig-t' },
            { functionCall: { id: 'c1', name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: 'sig-1' },
            { functionCall: { id: 'c2', name: 'get_weather', args: { city: 'Bergen' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'c1', name: 'get_weather', response: { temp_c: 3 } } },
            { functionResponse: { id: 'c2', name: 'get_weather', response: { output: 'rain' } } },
          ],
        },
        { role: 'model', parts: [{ text: 'Cold in Oslo, rain in Bergen.' }, { text: '', thoughtSignature: 'sig-end' }] },
        { role: 'user', parts: [{ fileData: { mimeType: 'application/pdf', fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc' } }] },
      ],
      tools: [weatherTool],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      generationConfig: {
        temperature: 0.7,
        topP: 0.95,
        topK: 40,
        maxOutputTokens: 1024,
        stopSequences: ['END'],
        seed: 7,
        presencePenalty: 0.5,
        frequencyPenalty: 0.25,
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'object', properties: { answer: { type: 'string' } } },
        thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
        imageConfig: { aspectRatio: '1:1' },
      },
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_ONLY_HIGH' }],
      cachedContent: 'cachedContents/abc',
    };
    expect(roundTrip(body)).toEqual(body);
  });

  it('should give back every function calling mode, hosted tools and VALIDATED', () => {
    for (const functionCallingConfig of [
      { mode: 'AUTO' },
      { mode: 'NONE' },
      { mode: 'ANY' },
      { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
      { mode: 'ANY', allowedFunctionNames: ['get_weather', 'get_time'] },
      { mode: 'VALIDATED' },
    ]) {
      const body = {
        contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
        tools: [weatherTool, { codeExecution: {} }],
        toolConfig: { functionCallingConfig },
      };
      expect(roundTrip(body)).toEqual(body);
    }
  });

  it('should give back stop sequences and a JSON mode without schema', () => {
    const body = {
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
      generationConfig: { stopSequences: ['a', 'b'], responseMimeType: 'application/json' },
    };
    expect(roundTrip(body)).toEqual(body);
  });
});
