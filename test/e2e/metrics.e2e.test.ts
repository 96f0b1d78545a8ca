import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { countTokens } from 'gpt-tokenizer';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_FOR_PROTOCOL, startTopology, TEST_KEY, type Topology } from './support/topology.ts';

type Totals = { requests: number; input: number; output: number };

function metricValue(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels);
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const labelText = line.slice(name.length + 1, line.indexOf('}'));
    if (wanted.every(([key, value]) => labelText.includes(`${key}="${value}"`))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** Metrics per format match exactly what the clients were answered (issue 6). */
describe('Prometheus metrics after a known mix of requests (all topology)', () => {
  let topology: Topology;
  const expected: Record<string, Totals> = {};
  const add = (format: string, input: number, output: number) => {
    const totals = (expected[format] ??= { requests: 0, input: 0, output: 0 });
    totals.requests++;
    totals.input += input;
    totals.output += output;
  };

  beforeAll(async () => {
    topology = await startTopology('all');
  });

  afterAll(async () => {
    await topology?.stop();
  });

  it('should count requests and tokens per format exactly', async () => {
    const openai = new OpenAI({ baseURL: `${topology.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: topology.url, apiKey: TEST_KEY, maxRetries: 0 });
    const genai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: topology.url } });

    for (const model of [MODEL_FOR_PROTOCOL['chat-completions'], MODEL_FOR_PROTOCOL.messages]) {
      const completion = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'count me' }] });
      add('chat-completions', completion.usage?.prompt_tokens ?? -1, completion.usage?.completion_tokens ?? -1);
      const stream = await openai.chat.completions.create({
        model,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'count my stream' }],
      });
      for await (const chunk of stream) if (chunk.usage) add('chat-completions', chunk.usage.prompt_tokens, chunk.usage.completion_tokens);
    }

    const response = await openai.responses.create({ model: MODEL_FOR_PROTOCOL['generate-content'], input: 'count responses' });
    add('responses', response.usage?.input_tokens ?? -1, response.usage?.output_tokens ?? -1);
    const streamed = await openai.responses.stream({ model: MODEL_FOR_PROTOCOL.responses, input: 'count responses stream' }).finalResponse();
    add('responses', streamed.usage?.input_tokens ?? -1, streamed.usage?.output_tokens ?? -1);

    for (const model of [MODEL_FOR_PROTOCOL.messages, MODEL_FOR_PROTOCOL.responses]) {
      const message = await anthropic.messages.stream({ model, max_tokens: 100, messages: [{ role: 'user', content: 'count messages' }] }).finalMessage();
      add('messages', message.usage.input_tokens, message.usage.output_tokens);
    }

    const generated = await genai.models.generateContent({ model: MODEL_FOR_PROTOCOL['chat-completions'], contents: 'count gemini' });
    add('generate-content', generated.usageMetadata?.promptTokenCount ?? -1, generated.usageMetadata?.candidatesTokenCount ?? -1);

    const text = await (await fetch(`${topology.url}/metrics`)).text();
    for (const [format, totals] of Object.entries(expected)) {
      expect({ format, requests: metricValue(text, 'switchyard_requests_total', { format, status_class: '2xx' }) }).toEqual({ format, requests: totals.requests });
      expect({ format, input: metricValue(text, 'switchyard_tokens_total', { format, kind: 'input' }) }).toEqual({ format, input: totals.input });
      expect({ format, output: metricValue(text, 'switchyard_tokens_total', { format, kind: 'output' }) }).toEqual({ format, output: totals.output });
    }
  });

  // Same-format streams are watched, not decoded; one whose upstream sends no usage still
  // counts, and that deployment's later streams are decoded so the estimate counts real text.
  it('should estimate streams whose upstream sent no usage: by events at first, then from the decoded text', async () => {
    const openai = new OpenAI({ baseURL: `${topology.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    const outputTokens = async () =>
      metricValue(await (await fetch(`${topology.url}/metrics`)).text(), 'switchyard_tokens_total', { format: 'chat-completions', kind: 'output' });
    const streamWithoutUsage = async () => {
      const stream = await openai.chat.completions.create({
        model: MODEL_FOR_PROTOCOL['chat-completions'],
        stream: true,
        messages: [{ role: 'user', content: 'no usage here [[sim:no_usage,words=12]]' }],
      });
      let chunks = 0;
      let text = '';
      for await (const chunk of stream) {
        chunks++;
        text += chunk.choices[0]?.delta.content ?? '';
        expect(chunk.usage ?? undefined).toBeUndefined();
      }
      return { chunks, text };
    };

    const before = await outputTokens();
    const watched = await streamWithoutUsage();
    const afterWatched = await outputTokens();
    // Every event relayed, [DONE] included, counts as about one token.
    expect(afterWatched - before).toBe(watched.chunks + 1);

    const decoded = await streamWithoutUsage();
    expect(decoded.text.length).toBeGreaterThan(0);
    expect((await outputTokens()) - afterWatched).toBe(countTokens(decoded.text));
  });
});
