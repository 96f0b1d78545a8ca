import { GatewayError, type StreamPart } from '@switchyard/canonical';
import { ApiError, GoogleGenAI, Type } from '@google/genai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderCountTokens } from './count-tokens.ts';
import { embeddingsResponseFromCanonical, embeddingsToCanonical } from './embeddings.ts';
import { renderError } from './errors.ts';
import { renderModelList } from './models.ts';
import { requestToCanonical } from './request.ts';
import { responseFromCanonical } from './response.ts';
import { createStreamEncoder } from './stream-encoder.ts';

/**
 * The official SDK (@google/genai 3.x) against this module's output, with fetch stubbed: what the
 * SDK sends must decode, and what we answer must parse the way the SDK's own users expect.
 */

interface Captured {
  url: string;
  body: unknown;
}

function serve(answer: (captured: Captured) => Response): Captured[] {
  const calls: Captured[] = [];
  vi.stubGlobal('fetch', async (input: string | URL | Request, init?: RequestInit) => {
    const captured = { url: String(input instanceof Request ? input.url : input), body: init?.body === undefined ? undefined : JSON.parse(String(init.body)) };
    calls.push(captured);
    return answer(captured);
  });
  return calls;
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function sse(parts: StreamPart[]): Response {
  const encoder = createStreamEncoder({ model: 'fast-chat', requestId: 'req_1' });
  return new Response(parts.map((part) => encoder.push(part)).join(''), { headers: { 'content-type': 'text/event-stream' } });
}

/** The operation name after the colon in `/v1/models/{model}:{operation}`. */
function operation(url: string): string | undefined {
  return /:(\w+)(?:\?|$)/.exec(new URL(url).pathname + new URL(url).search)?.[1];
}

const client = () => new GoogleGenAI({ apiKey: 'sk-sy-test', httpOptions: { baseUrl: 'http://switchyard.test' } });
const start: StreamPart = { type: 'start', id: 'r1', model: 'upstream', created: 1767225600 };

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('@google/genai against generate-content', () => {
  it('should decode the request body the SDK sends', async () => {
    const calls = serve(() => json({ candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }] }));
    await client().models.generateContent({
      model: 'fast-chat',
      contents: 'Weather in Oslo?',
      config: {
        systemInstruction: 'Answer tersely.',
        temperature: 0.3,
        maxOutputTokens: 256,
        stopSequences: ['END'],
        thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
        tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } } } }] }],
      },
    });
    const request = requestToCanonical(calls[0]!.body, { model: 'fast-chat', stream: false });
    expect(request).toEqual({
      model: 'fast-chat',
      stream: false,
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Answer tersely.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
      ],
      tools: [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
      temperature: 0.3,
      maxOutputTokens: 256,
      stopSequences: ['END'],
      reasoning: { budgetTokens: 1024, includeThoughts: true },
    });
  });

  it('should read a non-streaming answer with text, calls and usage', async () => {
    serve(() =>
      json(
        responseFromCanonical(
          {
            id: 'r1',
            model: 'upstream',
            created: 1767225600,
            content: [
              { type: 'text', text: 'Checking.' },
              { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
            ],
            finishReason: { unified: 'tool-calls' },
            usage: { inputTokens: 10, outputTokens: 7, reasoningTokens: 2 },
          },
          { model: 'fast-chat', requestId: 'req_1' },
        ),
      ),
    );
    const response = await client().models.generateContent({ model: 'fast-chat', contents: 'Hi' });
    expect(response.text).toBe('Checking.');
    expect(response.functionCalls).toEqual([{ id: 'call_1', name: 'get_weather', args: { city: 'Oslo' } }]);
    expect(response.usageMetadata?.candidatesTokenCount).toBe(5);
    expect(response.modelVersion).toBe('fast-chat');
  });

  it('should stream text and whole function calls and keep the chat turn in history', async () => {
    serve(() =>
      sse([
        start,
        { type: 'text-delta', text: 'Cold' },
        { type: 'text-delta', text: ' and clear.' },
        { type: 'tool-call-start', index: 0, id: 'call_1', name: 'get_weather' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":"Oslo"}' },
        { type: 'tool-call-end', index: 0 },
        { type: 'finish', finishReason: { unified: 'tool-calls' }, usage: { inputTokens: 60, outputTokens: 5 } },
      ]),
    );
    const chat = client().chats.create({ model: 'fast-chat' });
    const texts: string[] = [];
    const calls: unknown[] = [];
    let finishReason: string | undefined;
    let totalTokens: number | undefined;
    for await (const chunk of await chat.sendMessageStream({ message: 'Weather?' })) {
      if (chunk.text) texts.push(chunk.text);
      calls.push(...(chunk.functionCalls ?? []));
      finishReason = chunk.candidates?.[0]?.finishReason ?? finishReason;
      totalTokens = chunk.usageMetadata?.totalTokenCount ?? totalTokens;
    }
    expect(texts.join('')).toBe('Cold and clear.');
    expect(calls).toEqual([{ id: 'call_1', name: 'get_weather', args: { city: 'Oslo' } }]);
    expect([finishReason, totalTokens]).toEqual(['STOP', 65]);
    expect(chat.getHistory().map((content) => content.role)).toEqual(['user', 'model', 'model', 'model', 'model']);
  });

  it('should surface a mid-stream error as an ApiError', async () => {
    serve(() => sse([start, { type: 'text-delta', text: 'Hi' }, { type: 'error', error: new GatewayError('overloaded', 'Overloaded') }]));
    const read = async () => {
      for await (const chunk of await client().models.generateContentStream({ model: 'fast-chat', contents: 'Hi' })) void chunk;
    };
    await expect(read()).rejects.toSatisfy((error: unknown) => error instanceof ApiError && error.status === 503);
  });

  it('should surface a rendered 401 as an ApiError with the status', async () => {
    serve(() => {
      const rendered = renderError(new GatewayError('authentication', 'Invalid API key.'), 'req_1');
      return json(rendered.body, rendered.status);
    });
    await expect(client().models.generateContent({ model: 'fast-chat', contents: 'Hi' })).rejects.toSatisfy(
      (error: unknown) => error instanceof ApiError && error.status === 401 && error.message.includes('UNAUTHENTICATED'),
    );
  });

  it('should embed through batchEmbedContents and read the answer', async () => {
    const calls = serve((captured) => {
      const request = embeddingsToCanonical(captured.body, { model: 'embed', operation: operation(captured.url) });
      return json(embeddingsResponseFromCanonical({ model: 'embed', vectors: request.inputs.map(() => [0.5, 0.25]), usage: { inputTokens: 0, outputTokens: 0 } }, request));
    });
    const response = await client().models.embedContent({ model: 'embed', contents: ['a', 'b'], config: { taskType: 'RETRIEVAL_QUERY' } });
    expect(operation(calls[0]!.url)).toBe('batchEmbedContents');
    expect(response.embeddings?.map((embedding) => embedding.values)).toEqual([
      [0.5, 0.25],
      [0.5, 0.25],
    ]);
  });

  it('should count tokens and page through the model list', async () => {
    serve((captured) => {
      if (operation(captured.url) === 'countTokens') return json(renderCountTokens(31));
      const query = Object.fromEntries(new URL(captured.url).searchParams);
      const models = ['a', 'b', 'c'].map((id) => ({ id, created: 0, ownedBy: 'switchyard', kind: 'chat' as const }));
      return json(renderModelList(models, { pageSize: '2', pageToken: query.pageToken }));
    });
    const ai = client();
    expect((await ai.models.countTokens({ model: 'fast-chat', contents: 'Hi' })).totalTokens).toBe(31);
    const names: string[] = [];
    for await (const model of await ai.models.list()) names.push(model.name ?? '');
    expect(names).toEqual(['models/a', 'models/b', 'models/c']);
  });
});
