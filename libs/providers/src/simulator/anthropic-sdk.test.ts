import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from './index.ts';
import type { RunningSimulator } from './index.ts';

let simulator: RunningSimulator;
let client: Anthropic;

beforeAll(async () => {
  simulator = await startSimulator({ port: 0 });
  client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: simulator.url, maxRetries: 0 });
});

afterAll(async () => {
  await simulator.close();
});

const weatherTool = {
  name: 'get_weather',
  input_schema: {
    type: 'object' as const,
    properties: { city: { type: 'string' }, forecast: { type: 'object', properties: { days: { type: 'number' }, hourly: { type: 'boolean' } } } },
  },
};

describe('messages', () => {
  it('should answer with a text block and usage', async () => {
    const message = await client.messages.create({
      model: 'sim-messages',
      max_tokens: 100,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hello messages' }],
    });
    const block = message.content[0];
    expect(block?.type === 'text' && block.text.startsWith('Simulated reply to: Hello messages.')).toBe(true);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: Math.ceil('Be brief.Hello messages'.length / 4), output_tokens: 12 });
  });

  it('should stream a text reply the SDK assembles into the same message', async () => {
    const request = { model: 'sim-messages', max_tokens: 100, messages: [{ role: 'user' as const, content: 'Stream it' }] };
    const whole = await client.messages.create(request);
    const final = await client.messages.stream(request).finalMessage();
    expect(final.content).toEqual(whole.content);
    expect(final.usage.output_tokens).toBe(12);
    expect(final.usage.input_tokens).toBe(whole.usage.input_tokens);
  });

  it('should stream a tool_use block with input_json_delta fragments', async () => {
    const stream = client.messages.stream({
      model: 'sim-messages',
      max_tokens: 100,
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'Weather?' }],
    });
    let fragments = 0;
    stream.on('inputJson', (partial) => {
      if (partial !== '') fragments += 1;
    });
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    const block = final.content[0];
    expect(block?.type === 'tool_use' && [block.name, block.input]).toEqual([
      'get_weather',
      { city: 'sample', forecast: { days: 1, hourly: true } },
    ]);
    expect(block?.type === 'tool_use' && block.id).toMatch(/^toolu_[a-zA-Z0-9_-]+$/);
    expect(fragments).toBeGreaterThan(1);
  });

  it('should stream a signed thinking block before the answer when thinking is enabled', async () => {
    const final = await client.messages
      .stream({
        model: 'sim-messages',
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: 'Ponder this' }],
      })
      .finalMessage();
    const [thinking, text] = final.content;
    expect(thinking?.type === 'thinking' && thinking.thinking).toContain('Ponder this');
    expect(thinking?.type === 'thinking' && thinking.signature).toMatch(/^sig-[0-9a-f]{8}$/);
    expect(text?.type).toBe('text');
  });

  it('should answer a tool_result with text that mentions it', async () => {
    const message = await client.messages.create({
      model: 'sim-messages',
      max_tokens: 100,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'minus four' }] },
      ],
    });
    expect(message.stop_reason).toBe('end_turn');
    expect(message.content[0]?.type === 'text' && message.content[0].text).toContain('minus four');
  });

  it('should stop at a stop sequence and report which', async () => {
    const message = await client.messages.create({
      model: 'sim-messages',
      max_tokens: 100,
      stop_sequences: ['NOW'],
      messages: [{ role: 'user', content: 'Stop right NOW please' }],
    });
    expect(message.stop_reason).toBe('stop_sequence');
    expect(message.stop_sequence).toBe('NOW');
    expect(message.content[0]?.type === 'text' && message.content[0].text).toBe('Simulated reply to: Stop right ');
  });

  it('should stop at max_tokens', async () => {
    const final = await client.messages
      .stream({ model: 'sim-messages', max_tokens: 4, messages: [{ role: 'user', content: 'Long' }] })
      .finalMessage();
    expect(final.stop_reason).toBe('max_tokens');
    expect(final.usage.output_tokens).toBe(4);
  });

  it('should report cache reads apart from input and thinking inside output', async () => {
    const message = await client.messages.create(
      { model: 'sim-messages', max_tokens: 100, messages: [{ role: 'user', content: 'abcd' }] },
      { headers: { 'x-sim-cached-tokens': '50', 'x-sim-reasoning-tokens': '7' } },
    );
    expect(message.usage).toMatchObject({ input_tokens: 1, cache_read_input_tokens: 50, output_tokens: 19 });
  });

  it('should refuse a request without max_tokens like the real API', async () => {
    const request = { model: 'sim-messages', messages: [{ role: 'user', content: 'x' }] } as unknown as Anthropic.MessageCreateParamsNonStreaming;
    const error = await client.messages.create(request).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
    });
  });

  it('should refuse a request without the anthropic-version header', async () => {
    const response = await fetch(`${simulator.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it('should count tokens', async () => {
    const result = await client.messages.countTokens({ model: 'sim-messages', messages: [{ role: 'user', content: 'twelve chars' }] });
    expect(result.input_tokens).toBe(3);
  });

  it('should list models in the Anthropic shape when the version header is sent', async () => {
    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(['sim-messages']);
  });
});
