import { GoogleGenAI, Modality, Type } from '@google/genai';
import type { FunctionDeclaration } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from './index.ts';
import type { RunningSimulator } from './index.ts';

let simulator: RunningSimulator;
let client: GoogleGenAI;

beforeAll(async () => {
  simulator = await startSimulator({ port: 0 });
  client = new GoogleGenAI({ apiKey: 'goog-test', httpOptions: { baseUrl: simulator.url } });
});

afterAll(async () => {
  await simulator.close();
});

const weatherDeclaration: FunctionDeclaration = {
  name: 'get_weather',
  parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING }, days: { type: Type.INTEGER } } },
};

describe('generate-content', () => {
  it('should answer with text and usageMetadata', async () => {
    const response = await client.models.generateContent({ model: 'sim-gemini', contents: 'Hello gemini' });
    expect(response.text?.startsWith('Simulated reply to: Hello gemini.')).toBe(true);
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    expect(response.usageMetadata).toMatchObject({ promptTokenCount: 3, candidatesTokenCount: 12, totalTokenCount: 15 });
  });

  it('should stream the same text over SSE with usage on the last chunk', async () => {
    const whole = await client.models.generateContent({ model: 'sim-gemini', contents: 'Stream gemini' });
    const chunks = [];
    for await (const chunk of await client.models.generateContentStream({ model: 'sim-gemini', contents: 'Stream gemini' })) {
      chunks.push(chunk);
    }
    expect(chunks).toHaveLength(12);
    expect(chunks.map((chunk) => chunk.text).join('')).toBe(whole.text);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usageMetadata === undefined)).toBe(true);
    expect(chunks.at(-1)?.usageMetadata?.candidatesTokenCount).toBe(12);
  });

  it('should answer the v1beta paths too', async () => {
    const response = await fetch(`${simulator.url}/v1beta/models/sim-gemini:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': 'k', 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'raw' }] }] }),
    });
    const body = await response.text();
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(body.split('\r\n\r\n').filter((event) => event.startsWith('data: '))).toHaveLength(12);
    expect(body).not.toContain('event:');
  });

  it('should send each function call whole, with an id, and finish with STOP', async () => {
    const chunks = [];
    const stream = await client.models.generateContentStream({
      model: 'sim-gemini',
      contents: 'Weather?',
      config: { tools: [{ functionDeclarations: [weatherDeclaration] }] },
    });
    for await (const chunk of stream) chunks.push(chunk);
    const calls = chunks.flatMap((chunk) => chunk.functionCalls ?? []);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ name: 'get_weather', args: { city: 'sample', days: 1 } });
    expect(calls[0]?.id).toBeTruthy();
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe('STOP');
  });

  it('should answer a functionResponse with text', async () => {
    const response = await client.models.generateContent({
      model: 'sim-gemini',
      config: { tools: [{ functionDeclarations: [weatherDeclaration] }] },
      contents: [
        { role: 'user', parts: [{ text: 'Weather?' }] },
        { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'get_weather', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'get_weather', response: { output: 'hail' } } }] },
      ],
    });
    expect(response.functionCalls).toBeUndefined();
    expect(response.text).toContain('hail');
  });

  it('should send thoughts and a thoughtSignature on the first real part when thoughts are included', async () => {
    const response = await client.models.generateContent({
      model: 'sim-gemini',
      contents: 'Think it over',
      config: { thinkingConfig: { includeThoughts: true } },
    });
    const parts = response.candidates?.[0]?.content?.parts ?? [];
    expect(parts[0]).toMatchObject({ thought: true });
    expect(parts[1]?.thoughtSignature).toBeTruthy();
    expect(parts[1]?.thought).toBeUndefined();
    expect(response.usageMetadata?.thoughtsTokenCount).toBeGreaterThan(0);
    expect(response.usageMetadata?.candidatesTokenCount).toBe(12);
  });

  it('should think without showing thoughts when only a budget is set', async () => {
    const response = await client.models.generateContent({
      model: 'sim-gemini',
      contents: 'Quietly',
      config: { thinkingConfig: { thinkingBudget: 512 } },
    });
    const parts = response.candidates?.[0]?.content?.parts ?? [];
    expect(parts.some((part) => part.thought)).toBe(false);
    expect(response.usageMetadata?.thoughtsTokenCount).toBeGreaterThan(0);
  });

  it('should answer JSON matching responseSchema', async () => {
    const response = await client.models.generateContent({
      model: 'sim-gemini',
      contents: 'A city',
      config: {
        responseMimeType: 'application/json',
        responseSchema: { type: Type.OBJECT, properties: { name: { type: Type.STRING }, big: { type: Type.BOOLEAN } } },
      },
    });
    expect(JSON.parse(response.text ?? '')).toEqual({ name: 'sample', big: true });
  });

  it('should finish with MAX_TOKENS at maxOutputTokens', async () => {
    const response = await client.models.generateContent({ model: 'sim-gemini', contents: 'Long', config: { maxOutputTokens: 2 } });
    expect(response.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
    expect(response.text).toBe('Simulated reply');
  });

  it('should add a valid PNG part when IMAGE output is asked for', async () => {
    const response = await client.models.generateContent({
      model: 'sim-gemini',
      contents: 'Draw',
      config: { responseModalities: [Modality.TEXT, Modality.IMAGE] },
    });
    const image = response.candidates?.[0]?.content?.parts?.find((part) => part.inlineData)?.inlineData;
    expect(image?.mimeType).toBe('image/png');
    expect(Buffer.from(image?.data ?? '', 'base64').subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  });

  it('should count tokens', async () => {
    const result = await client.models.countTokens({ model: 'sim-gemini', contents: 'sixteen chars!!!' });
    expect(result.totalTokens).toBe(4);
  });

  it('should embed deterministically with outputDimensionality', async () => {
    const first = await client.models.embedContent({ model: 'sim-embedding', contents: ['alpha', 'beta'], config: { outputDimensionality: 4 } });
    const again = await client.models.embedContent({ model: 'sim-embedding', contents: 'alpha', config: { outputDimensionality: 4 } });
    expect(first.embeddings?.map((embedding) => embedding.values?.length)).toEqual([4, 4]);
    expect(again.embeddings?.[0]?.values).toEqual(first.embeddings?.[0]?.values);
  });

  it('should list models in the Gemini shape', async () => {
    const names = [];
    for await (const model of await client.models.list()) names.push(model.name);
    expect(names).toEqual(['models/sim-gemini', 'models/sim-embedding']);
  });
});
