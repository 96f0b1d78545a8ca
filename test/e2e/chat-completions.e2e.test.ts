import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamChat } from './support/chat-stream.ts';
import { startTopology, TEST_KEY, UPSTREAM_KEY, type Topology, type TopologyKind } from './support/topology.ts';

describe.each<TopologyKind>(['all', 'split'])('chat-completions end to end (%s)', (kind) => {
  let topology: Topology;
  let client: OpenAI;

  beforeAll(async () => {
    topology = await startTopology(kind);
    client = new OpenAI({ baseURL: `${topology.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  });

  afterAll(async () => {
    await topology?.stop();
  });

  it('should answer a chat completion with usage', async () => {
    const completion = await client.chat.completions.create({
      model: 'model-chat',
      messages: [{ role: 'user', content: 'Say hello to the e2e test' }],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]?.message.content).toContain('e2e test');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('should stream chunks and the usage chunk when asked', async () => {
    const { chunks, text, finishReason, usage } = await streamChat(client, 'model-chat', 'Stream something please');
    expect(chunks).toBeGreaterThan(3);
    expect(text).toContain('Stream something please');
    expect(finishReason).toBe('stop');
    expect(usage?.completion_tokens).toBeGreaterThan(0);
  });

  it.each([
    ['read whole', ''],
    ['one event per read', ' [[sim:chunk_delay_ms=2]]'],
  ])('should relay text in any script intact, the upstream stream %s', async (_shape, knob) => {
    const words = 'Grüße aus Köln, 北京 und 🚂 ünd ça';
    const { text, usage } = await streamChat(client, 'model-chat', `${words}${knob}`);
    expect(text).toContain(`Simulated reply to: ${words}`);
    expect(text).not.toContain('\uFFFD');
    expect(usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('should not send the usage chunk the client did not ask for', async () => {
    const stream = await client.chat.completions.create({
      model: 'model-chat',
      messages: [{ role: 'user', content: 'No usage please' }],
      stream: true,
    });
    for await (const chunk of stream) {
      expect(chunk.choices.length).toBeGreaterThan(0);
    }
  });

  it("should send a stream's head while the upstream has yet to send its first event", async () => {
    const started = performance.now();
    const response = await fetch(`${topology.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'model-chat', stream: true, messages: [{ role: 'user', content: 'Slow start [[sim:ttft_ms=2000]]' }] }),
    });
    const headAt = performance.now() - started;
    const reader = response.body!.getReader();
    await reader.read();
    const firstEventAt = performance.now() - started;
    await reader.cancel();
    expect(response.status).toBe(200);
    // The upstream holds its first event back for 2 s; the head must not wait for it.
    expect(firstEventAt - headAt).toBeGreaterThan(1_000);
  });

  it.each([
    ['temperature', { temperature: 3 }],
    ['top_p', { top_p: 1.5 }],
    ['n', { n: 0 }],
    ['presence_penalty', { presence_penalty: -3 }],
    ['frequency_penalty', { frequency_penalty: 2.5 }],
  ])('should answer 400 naming %s when it is out of bounds', async (param, extra) => {
    const error = await client.chat.completions
      .create({ model: 'model-chat', messages: [{ role: 'user', content: 'x' }], ...extra })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(param);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).type).toBe('invalid_request_error');
  });

  it('should answer 401 for a missing or unknown key', async () => {
    const wrong = new OpenAI({ baseURL: `${topology.url}/v1`, apiKey: 'sk-sy-not-a-real-key-000000000', maxRetries: 0 });
    await expect(wrong.chat.completions.create({ model: 'model-chat', messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
    const response = await fetch(`${topology.url}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(401);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  });

  it('should answer 404 for an unknown model and for a model of another tenant', async () => {
    for (const model of ['no-such-model', 'hidden-model']) {
      const error = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    }
  });

  it('should answer 400 for a body that is not JSON', async () => {
    const response = await fetch(`${topology.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: '{"model": ',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
  });

  it('should pass a same-format upstream error through with its status', async () => {
    const error = await client.chat.completions
      .create({ model: 'model-chat', messages: [{ role: 'user', content: 'fail please [[sim:fail_status=500]]' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
  });

  it.each([
    ['dead-model', 502, 'an unreachable upstream'],
    ['slow-model', 504, 'an upstream slower than the timeout'],
  ])('should answer %s with %i for %s, in the chat-completions shape', async (model, status) => {
    const response = await fetch(`${topology.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'x [[sim:latency_ms=2000]]' }] }),
    });
    expect(response.status).toBe(status);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  });

  it('should list the tenant models in the chat-completions style', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toContain('model-chat');
    expect(ids).not.toContain('hidden-model');
  });

  it('should rewrite the model name upstream and never log the keys', async () => {
    const requests = (await (await fetch(`${topology.simulatorUrl}/_sim/requests`)).json()) as Array<{ body: { model?: string } }>;
    expect(requests.some((request) => request.body.model === 'sim-chat-model')).toBe(true);
    expect(topology.output()).not.toContain(TEST_KEY);
    expect(topology.output()).not.toContain(UPSTREAM_KEY);
  });

  it('should serve Prometheus metrics labelled by format', async () => {
    const metricsUrl = topology.kind === 'all' ? topology.url : topology.processes[1]?.url;
    const text = await (await fetch(`${metricsUrl}/metrics`)).text();
    expect(text).toMatch(/switchyard_requests_total\{format="chat-completions",model="model-chat",status_class="2xx"\} \d+/);
    expect(text).toContain('switchyard_request_duration_seconds_bucket');
  });
});
