import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { streamChat } from './support/chat-stream.ts';
import { Matrix } from './support/matrix.ts';
import { MODEL_FOR_PROTOCOL, startTopology, TEST_KEY, type Topology, type TopologyKind } from './support/topology.ts';

const UPSTREAMS = Object.keys(MODEL_FOR_PROTOCOL) as Array<keyof typeof MODEL_FOR_PROTOCOL>;

const weatherSchema: { type: 'object'; properties: Record<string, { type: string; description: string }>; required: string[] } = {
  type: 'object',
  properties: { city: { type: 'string', description: 'City name' } },
  required: ['city'],
};

async function lastUpstreamBody(topology: Topology): Promise<string> {
  const requests = (await (await fetch(`${topology.simulatorUrl}/_sim/requests`)).json()) as Array<{ body: unknown }>;
  return JSON.stringify(requests[requests.length - 1]?.body ?? null);
}

describe.each<TopologyKind>(['all', 'split'])('conformance matrix (%s)', (kind) => {
  let topology: Topology;
  let openai: OpenAI;
  let anthropic: Anthropic;
  let genai: GoogleGenAI;
  const matrix = new Matrix(UPSTREAMS);

  beforeAll(async () => {
    topology = await startTopology(kind);
    openai = new OpenAI({ baseURL: `${topology.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: topology.url, apiKey: TEST_KEY, maxRetries: 0 });
    genai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: topology.url } });
  });

  afterAll(async () => {
    process.stdout.write(matrix.render(`Conformance matrix, ${kind} topology (client operation × upstream protocol)`));
    await topology?.stop();
  });

  for (const upstream of UPSTREAMS) {
    const model = MODEL_FOR_PROTOCOL[upstream];

    matrix.cell('openai chat.completions.create', upstream, async () => {
      const completion = await openai.chat.completions.create({
        model,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello matrix' },
        ],
      });
      expect(completion.choices[0]?.message.content).toContain('Hello matrix');
      expect(completion.choices[0]?.finish_reason).toBe('stop');
      expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
      expect(completion.model).toBe(upstream === 'chat-completions' ? 'sim-chat-model' : model);
    });

    matrix.cell('openai chat stream + usage', upstream, async () => {
      const { text, usage } = await streamChat(openai, model, 'Stream matrix');
      expect(text).toContain('Stream matrix');
      expect(usage?.completion_tokens).toBeGreaterThan(0);
    });

    matrix.cell('openai chat tools round trip', upstream, async () => {
      const tools: OpenAI.ChatCompletionTool[] = [
        { type: 'function', function: { name: 'get_weather', description: 'Weather now', parameters: weatherSchema } },
      ];
      const first = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools });
      const message = first.choices[0]?.message;
      expect(first.choices[0]?.finish_reason).toBe('tool_calls');
      const call = message?.tool_calls?.[0];
      expect(call?.type).toBe('function');
      if (call?.type !== 'function') return;
      expect(JSON.parse(call.function.arguments)).toHaveProperty('city');
      const second = await openai.chat.completions.create({
        model,
        tools,
        messages: [
          { role: 'user', content: 'Weather in Oslo?' },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: call.id, content: '3 degrees and clear' },
        ],
      });
      expect(second.choices[0]?.finish_reason).toBe('stop');
      expect(second.choices[0]?.message.content ?? '').not.toBe('');
    });

    matrix.cell('openai chat stream tool calls', upstream, async () => {
      const stream = await openai.chat.completions.create({
        model,
        stream: true,
        messages: [{ role: 'user', content: 'Two lookups [[sim:tool_calls=2]]' }],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: weatherSchema } }],
      });
      const calls = new Map<number, { name: string; args: string }>();
      let finish: string | null | undefined;
      for await (const chunk of stream) {
        for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
          const call = calls.get(delta.index) ?? { name: '', args: '' };
          call.name += delta.function?.name ?? '';
          call.args += delta.function?.arguments ?? '';
          calls.set(delta.index, call);
        }
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect(finish).toBe('tool_calls');
      expect(calls.size).toBe(2);
      for (const call of calls.values()) {
        expect(call.name).toBe('get_weather');
        expect(JSON.parse(call.args)).toHaveProperty('city');
      }
    });

    matrix.cell('openai responses.create', upstream, async () => {
      const response = await openai.responses.create({ model, input: 'Responses matrix', instructions: 'Be brief.' });
      expect(response.status).toBe('completed');
      expect(response.output_text).toContain('Responses matrix');
      expect(response.usage?.output_tokens).toBeGreaterThan(0);
      // Not kept: a Responses upstream's answer is then relayed with its usage read, not decoded.
      const unstored = await openai.responses.create({ model, input: 'Unstored matrix', store: false });
      expect(unstored.output_text).toContain('Unstored matrix');
      expect(unstored.usage?.output_tokens).toBeGreaterThan(0);
      await expect(openai.responses.retrieve(unstored.id)).rejects.toMatchObject({ status: 404 });
    });

    matrix.cell('openai responses.stream finalResponse', upstream, async () => {
      const stream = openai.responses.stream({ model, input: 'Responses stream matrix' });
      let deltas = '';
      stream.on('response.output_text.delta', (event) => (deltas += event.delta));
      const final = await stream.finalResponse();
      expect(final.status).toBe('completed');
      expect(final.output_text).toContain('Responses stream matrix');
      expect(deltas).toBe(final.output_text);
    });

    matrix.cell('openai responses.stream store: false', upstream, async () => {
      // Not kept, so a Responses upstream's stream is only watched: text in several scripts,
      // the upstream's stream read whole and one event per read.
      for (const knob of ['', ' [[sim:chunk_delay_ms=2]]']) {
        const prompt = 'Unstored stream matrix: Grüße aus Köln, 北京 und 🚂';
        const stream = openai.responses.stream({ model, input: `${prompt}${knob}`, store: false });
        let deltas = '';
        stream.on('response.output_text.delta', (event) => (deltas += event.delta));
        const final = await stream.finalResponse();
        expect(final.output_text).toContain(prompt);
        expect(deltas).toBe(final.output_text);
        expect(final.usage?.output_tokens).toBeGreaterThan(0);
        await expect(openai.responses.retrieve(final.id)).rejects.toMatchObject({ status: 404 });
      }
    });

    matrix.cell('openai responses previous_response_id', upstream, async () => {
      const first = await openai.responses.create({ model, input: 'My favourite colour is teal.' });
      const second = await openai.responses.create({ model, input: 'What is my favourite colour?', previous_response_id: first.id });
      expect(second.status).toBe('completed');
      // The upstream saw the earlier turn: Switchyard rebuilt the conversation.
      expect(await lastUpstreamBody(topology)).toContain('favourite colour is teal');
      const retrieved = await openai.responses.retrieve(first.id);
      expect(retrieved.id).toBe(first.id);
    });

    matrix.cell('anthropic messages.create', upstream, async () => {
      const message = await anthropic.messages.create({
        model,
        max_tokens: 256,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Messages matrix' }],
      });
      expect(message.type).toBe('message');
      expect(message.stop_reason).toBe('end_turn');
      const text = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      expect(text).toContain('Messages matrix');
      expect(message.usage.output_tokens).toBeGreaterThan(0);
    });

    matrix.cell('anthropic messages.stream finalMessage', upstream, async () => {
      // Text in several scripts, the upstream's stream read whole and one event per read.
      for (const knob of ['', ' [[sim:chunk_delay_ms=2]]']) {
        const prompt = 'Messages stream matrix: Grüße aus Köln, 北京 und 🚂';
        const stream = anthropic.messages.stream({ model, max_tokens: 256, messages: [{ role: 'user', content: `${prompt}${knob}` }] });
        let deltas = '';
        stream.on('text', (text) => (deltas += text));
        const final = await stream.finalMessage();
        const text = final.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
        expect(text).toContain(prompt);
        expect(deltas).toBe(text);
        expect(final.usage.output_tokens).toBeGreaterThan(0);
      }
    });

    matrix.cell('anthropic tool use round trip', upstream, async () => {
      const tools: Anthropic.Tool[] = [{ name: 'get_weather', description: 'Weather now', input_schema: weatherSchema }];
      const first = await anthropic.messages
        .stream({ model, max_tokens: 256, tools, messages: [{ role: 'user', content: 'Weather in Oslo?' }] })
        .finalMessage();
      expect(first.stop_reason).toBe('tool_use');
      const call = first.content.find((block) => block.type === 'tool_use');
      expect(call?.type).toBe('tool_use');
      if (call?.type !== 'tool_use') return;
      expect(call.input).toHaveProperty('city');
      const second = await anthropic.messages.create({
        model,
        max_tokens: 256,
        tools,
        messages: [
          { role: 'user', content: 'Weather in Oslo?' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '3 degrees and clear' }] },
        ],
      });
      expect(second.stop_reason).toBe('end_turn');
    });

    matrix.cell('anthropic countTokens', upstream, async () => {
      const counted = await anthropic.messages.countTokens({ model, messages: [{ role: 'user', content: 'Count these words please' }] });
      expect(counted.input_tokens).toBeGreaterThan(0);
    });

    matrix.cell('genai generateContent', upstream, async () => {
      const response = await genai.models.generateContent({
        model,
        contents: 'Gemini matrix',
        config: { systemInstruction: 'Be brief.' },
      });
      expect(response.text).toContain('Gemini matrix');
      expect(response.usageMetadata?.totalTokenCount).toBeGreaterThan(0);
    });

    matrix.cell('genai generateContentStream', upstream, async () => {
      // Text in several scripts, the upstream's stream read whole and one event per read.
      for (const knob of ['', ' [[sim:chunk_delay_ms=2]]']) {
        const prompt = 'Gemini stream matrix: Grüße aus Köln, 北京 und 🚂';
        let text = '';
        let usage: number | undefined;
        for await (const chunk of await genai.models.generateContentStream({ model, contents: `${prompt}${knob}` })) {
          text += chunk.text ?? '';
          usage = chunk.usageMetadata?.totalTokenCount ?? usage;
        }
        expect(text).toContain(prompt);
        expect(usage).toBeGreaterThan(0);
      }
    });

    matrix.cell('genai function calling', upstream, async () => {
      const response = await genai.models.generateContent({
        model,
        contents: 'Weather in Oslo?',
        config: {
          tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather now', parametersJsonSchema: weatherSchema }] }],
        },
      });
      const call = response.functionCalls?.[0];
      expect(call?.name).toBe('get_weather');
      expect(call?.args).toHaveProperty('city');
    });

    matrix.cell('genai countTokens', upstream, async () => {
      const counted = await genai.models.countTokens({ model, contents: 'Count these words please' });
      expect(counted.totalTokens).toBeGreaterThan(0);
    });
  }

  matrix.cell('openai embeddings (base64 default)', 'chat-completions', async () => {
    const result = await openai.embeddings.create({ model: 'embed-chat', input: ['one', 'two'] });
    expect(result.data).toHaveLength(2);
    expect(result.data[0]?.embedding.length).toBeGreaterThan(0);
    expect(result.data[0]?.embedding.every((value) => Number.isFinite(value))).toBe(true);
  });

  matrix.cell('openai embeddings (base64 default)', 'generate-content', async () => {
    const result = await openai.embeddings.create({ model: 'embed-gemini', input: 'one' });
    expect(result.data[0]?.embedding.length).toBeGreaterThan(0);
  });

  matrix.cell('genai embedContent', 'generate-content', async () => {
    const result = await genai.models.embedContent({ model: 'embed-gemini', contents: 'hello' });
    expect(result.embeddings?.[0]?.values?.length).toBeGreaterThan(0);
  });

  matrix.cell('genai embedContent', 'chat-completions', async () => {
    const result = await genai.models.embedContent({ model: 'embed-chat', contents: ['hello', 'there'] });
    expect(result.embeddings).toHaveLength(2);
  });

  matrix.cell('model lists (all three SDKs)', 'chat-completions', async () => {
    const openaiIds: string[] = [];
    for await (const model of openai.models.list()) openaiIds.push(model.id);
    const anthropicIds: string[] = [];
    for await (const model of anthropic.models.list()) anthropicIds.push(model.id);
    const genaiNames: string[] = [];
    for await (const model of await genai.models.list()) genaiNames.push(model.name ?? '');
    expect(openaiIds).toContain('model-messages');
    expect(anthropicIds).toContain('model-messages');
    expect(genaiNames).toContain('models/model-messages');
    for (const ids of [openaiIds, anthropicIds]) expect(ids).not.toContain('hidden-model');
  });
});
