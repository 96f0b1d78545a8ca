import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from './index.ts';
import type { RunningSimulator } from './index.ts';

// The official SDK is the judge: if it cannot parse an answer, the simulator is wrong.
let simulator: RunningSimulator;
let client: OpenAI;

beforeAll(async () => {
  simulator = await startSimulator({ port: 0 });
  client = new OpenAI({ apiKey: 'sk-test', baseURL: `${simulator.url}/v1`, maxRetries: 0 });
});

afterAll(async () => {
  await simulator.close();
});

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' }, unit: { enum: ['celsius', 'fahrenheit'] } },
      required: ['city'],
    },
  },
};

describe('chat completions', () => {
  it('should answer deterministically with usage counted from the input', async () => {
    const content = 'Hello simulator, how are you?';
    const first = await client.chat.completions.create({ model: 'sim-chat', messages: [{ role: 'user', content }] });
    const second = await client.chat.completions.create({ model: 'sim-chat', messages: [{ role: 'user', content }] });

    const text = first.choices[0]?.message.content ?? '';
    expect(text.startsWith(`Simulated reply to: ${content}.`)).toBe(true);
    expect(text.split(' ')).toHaveLength(12);
    expect(second.choices[0]?.message.content).toBe(text);
    expect(first.id).not.toBe(second.id);
    expect(first.choices[0]?.finish_reason).toBe('stop');
    expect(first.usage).toMatchObject({ prompt_tokens: Math.ceil(content.length / 4), completion_tokens: 12 });
  });

  it('should accept images and count them in the input', async () => {
    const completion = await client.chat.completions.create({
      model: 'sim-chat',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe this' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    });
    expect(completion.choices[0]?.message.content?.startsWith('Simulated reply to: Describe this.')).toBe(true);
    expect(completion.usage?.prompt_tokens).toBe(Math.ceil('Describe this'.length / 4) + 85);
  });

  it('should stream one word per chunk and a usage chunk when include_usage is set', async () => {
    const messages = [{ role: 'user' as const, content: 'Stream please' }];
    const whole = await client.chat.completions.create({ model: 'sim-chat', messages });
    const stream = await client.chat.completions.create({
      model: 'sim-chat',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);

    const contentChunks = chunks.filter((chunk) => chunk.choices[0]?.delta.content);
    expect(contentChunks).toHaveLength(12);
    expect(contentChunks.map((chunk) => chunk.choices[0]?.delta.content).join('')).toBe(whole.choices[0]?.message.content);
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage?.completion_tokens).toBe(12);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('should leave the usage chunk out when include_usage is not set', async () => {
    const stream = await client.chat.completions.create({ model: 'sim-chat', messages: [{ role: 'user', content: 'x' }], stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((chunk) => chunk.choices.length === 1 && chunk.usage === undefined)).toBe(true);
  });

  it('should call the offered tool with arguments built from its schema, streamed in fragments', async () => {
    const stream = client.chat.completions.stream({
      model: 'sim-chat',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: [weatherTool],
    });
    let fragments = 0;
    stream.on('chunk', (chunk) => {
      if (chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments) fragments += 1;
    });
    const completion = await stream.finalChatCompletion();

    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    const call = choice?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.name).toBe('get_weather');
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'sample', days: 1, unit: 'celsius' });
    expect(fragments).toBeGreaterThan(1);
  });

  it('should make parallel calls cycling through the tools when tool_calls is set', async () => {
    const second = { type: 'function' as const, function: { name: 'get_time', parameters: { type: 'object', properties: {} } } };
    const completion = await client.chat.completions.create(
      { model: 'sim-chat', messages: [{ role: 'user', content: 'Both please' }], tools: [weatherTool, second] },
      { headers: { 'x-sim-tool-calls': '3' } },
    );
    const calls = completion.choices[0]?.message.tool_calls ?? [];
    expect(calls.map((call) => call.type === 'function' && call.function.name)).toEqual(['get_weather', 'get_time', 'get_weather']);
    expect(new Set(calls.map((call) => call.id)).size).toBe(3);
  });

  it('should call the forced tool named by tool_choice', async () => {
    const second = { type: 'function' as const, function: { name: 'get_time' } };
    const completion = await client.chat.completions.create({
      model: 'sim-chat',
      messages: [{ role: 'user', content: 'Time?' }],
      tools: [weatherTool, second],
      tool_choice: { type: 'function', function: { name: 'get_time' } },
    });
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && [call.function.name, call.function.arguments]).toEqual(['get_time', '{}']);
  });

  it('should answer a tool result with text that mentions it', async () => {
    const completion = await client.chat.completions.create({
      model: 'sim-chat',
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '3 degrees and snow' },
      ],
    });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.choices[0]?.message.content).toContain('3 degrees and snow');
  });

  it('should cut at a stop sequence and finish with stop', async () => {
    const completion = await client.chat.completions.create({
      model: 'sim-chat',
      messages: [{ role: 'user', content: 'Say something then HALT and more' }],
      stop: ['HALT'],
    });
    expect(completion.choices[0]?.message.content).toBe('Simulated reply to: Say something then ');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
  });

  it('should cut at max_completion_tokens and finish with length', async () => {
    const completion = await client.chat.completions.create({
      model: 'sim-chat',
      messages: [{ role: 'user', content: 'Long answer' }],
      max_completion_tokens: 3,
    });
    expect(completion.choices[0]?.message.content).toBe('Simulated reply to:');
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.usage?.completion_tokens).toBe(3);
  });

  it('should answer JSON that satisfies the requested schema', async () => {
    const completion = await client.chat.completions.create({
      model: 'sim-chat',
      messages: [{ role: 'user', content: 'A person' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'person',
          schema: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } } },
        },
      },
    });
    expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual({ name: 'sample', age: 1, tags: ['sample'] });
  });

  it('should emit reasoning_content and count reasoning tokens when reasoning_effort asks for it', async () => {
    const stream = await client.chat.completions.create({
      model: 'sim-chat',
      messages: [{ role: 'user', content: 'Think first' }],
      reasoning_effort: 'low',
      stream: true,
      stream_options: { include_usage: true },
    });
    let reasoning = '';
    let usage;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { reasoning_content?: string } | undefined;
      reasoning += delta?.reasoning_content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(reasoning).toContain('Think first');
    expect(usage?.completion_tokens_details?.reasoning_tokens).toBe(reasoning.trim().split(/\s+/).length);
    expect(usage?.completion_tokens).toBe(12 + (usage?.completion_tokens_details?.reasoning_tokens ?? 0));
  });
});

describe('responses', () => {
  it('should answer with a message item and usage', async () => {
    const response = await client.responses.create({ model: 'sim-chat', input: 'Hello responses' });
    expect(response.status).toBe('completed');
    expect(response.output_text.startsWith('Simulated reply to: Hello responses.')).toBe(true);
    expect(response.usage).toMatchObject({ input_tokens: 4, output_tokens: 12, total_tokens: 16 });
  });

  it('should stream a text reply the SDK assembles into the same response', async () => {
    const whole = await client.responses.create({ model: 'sim-chat', input: 'Stream me' });
    const stream = client.responses.stream({ model: 'sim-chat', input: 'Stream me' });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe(whole.output_text);
    expect(deltas).toHaveLength(12);
    expect(final.usage?.output_tokens).toBe(12);
  });

  it('should stream function calls with arguments in fragments', async () => {
    const stream = client.responses.stream({
      model: 'sim-chat',
      input: [{ role: 'user', content: 'Weather?' }],
      tools: [{ type: 'function', name: 'get_weather', parameters: weatherTool.function.parameters, strict: false }],
    });
    let fragments = 0;
    stream.on('response.function_call_arguments.delta', () => (fragments += 1));
    const final = await stream.finalResponse();
    const call = final.output.find((item) => item.type === 'function_call');
    expect(call?.type === 'function_call' && [call.name, JSON.parse(call.arguments)]).toEqual([
      'get_weather',
      { city: 'sample', days: 1, unit: 'celsius' },
    ]);
    expect(fragments).toBeGreaterThan(1);
  });

  it('should answer a function_call_output with text', async () => {
    const response = await client.responses.create({
      model: 'sim-chat',
      tools: [{ type: 'function', name: 'get_weather', parameters: null, strict: false }],
      input: [
        { role: 'user', content: 'Weather?' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'sunny, 21 C' },
      ],
    });
    expect(response.output_text).toContain('sunny, 21 C');
  });

  it('should stream a reasoning item with encrypted content when include asks for it', async () => {
    const stream = client.responses.stream({
      model: 'sim-chat',
      input: 'Reason about it',
      reasoning: { effort: 'medium', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
    });
    const final = await stream.finalResponse();
    const reasoning = final.output[0];
    expect(reasoning?.type).toBe('reasoning');
    expect(reasoning?.type === 'reasoning' && reasoning.summary[0]?.text).toContain('Reason about it');
    expect(reasoning?.type === 'reasoning' && reasoning.encrypted_content).toMatch(/^[A-Za-z0-9+/=]+$/);
    expect(final.usage?.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  });

  it('should end incomplete at max_output_tokens', async () => {
    const final = await client.responses.stream({ model: 'sim-chat', input: 'Cut me', max_output_tokens: 2 }).finalResponse();
    expect(final.status).toBe('incomplete');
    expect(final.incomplete_details?.reason).toBe('max_output_tokens');
    expect(final.output_text).toBe('Simulated reply');
  });
});

describe('embeddings and models', () => {
  it('should return unit vectors the SDK decodes from base64 by default', async () => {
    const result = await client.embeddings.create({ model: 'sim-embedding', input: ['one', 'two'] });
    const [first, second] = result.data.map((item) => item.embedding);
    expect(first).toHaveLength(8);
    expect(Math.hypot(...(first ?? []))).toBeCloseTo(1, 5);
    expect(first).not.toEqual(second);
  });

  it('should honour dimensions and float encoding', async () => {
    const floats = await client.embeddings.create({ model: 'sim-embedding', input: 'one', dimensions: 16, encoding_format: 'float' });
    const packed = await client.embeddings.create({ model: 'sim-embedding', input: 'one', dimensions: 16 });
    expect(floats.data[0]?.embedding).toHaveLength(16);
    packed.data[0]?.embedding.forEach((value, index) => expect(value).toBeCloseTo(floats.data[0]?.embedding[index] ?? NaN, 6));
  });

  it('should list fixed model ids', async () => {
    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(['sim-chat', 'sim-embedding']);
  });
});
