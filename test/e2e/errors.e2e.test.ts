import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_FOR_PROTOCOL, startTopology, TEST_KEY, type Topology } from './support/topology.ts';

/** Every format's errors parse as typed errors in its official SDK, before and after the first byte. */
describe('errors in each client format (all topology)', () => {
  let topology: Topology;
  let openai: OpenAI;
  let anthropic: Anthropic;
  let genai: GoogleGenAI;

  beforeAll(async () => {
    topology = await startTopology('all');
    openai = new OpenAI({ baseURL: `${topology.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: topology.url, apiKey: TEST_KEY, maxRetries: 0 });
    genai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: topology.url } });
  });

  afterAll(async () => {
    await topology?.stop();
  });

  const caught = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

  it('should answer 401 for an unknown key in every format', async () => {
    const badKey = 'sk-sy-unknown-key-0000000000000000';
    expect(await caught(new OpenAI({ baseURL: `${topology.url}/v1`, apiKey: badKey, maxRetries: 0 }).responses.create({ model: 'model-chat', input: 'x' }))).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(
      await caught(new Anthropic({ baseURL: topology.url, apiKey: badKey, maxRetries: 0 }).messages.create({ model: 'model-chat', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })),
    ).toBeInstanceOf(Anthropic.AuthenticationError);
    const geminiError = await caught(new GoogleGenAI({ apiKey: badKey, httpOptions: { baseUrl: topology.url } }).models.generateContent({ model: 'model-chat', contents: 'x' }));
    expect(geminiError).toBeInstanceOf(ApiError);
    expect((geminiError as ApiError).status).toBe(401);
    expect((geminiError as ApiError).message).toContain('UNAUTHENTICATED');
  });

  it('should answer 404 for an unknown model in every format', async () => {
    expect(await caught(openai.responses.create({ model: 'nope', input: 'x' }))).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await caught(anthropic.messages.create({ model: 'nope', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }))).toBeInstanceOf(
      Anthropic.NotFoundError,
    );
    expect(((await caught(genai.models.generateContent({ model: 'nope', contents: 'x' }))) as ApiError).status).toBe(404);
  });

  it('should answer 400 for out-of-bounds values in every format', async () => {
    expect(await caught(openai.responses.create({ model: 'model-chat', input: 'x', temperature: 5 }))).toBeInstanceOf(OpenAI.BadRequestError);
    // Recent SDK types dropped `temperature`; the API still takes it, so send it untyped.
    const hot = { model: 'model-chat', max_tokens: 10, temperature: 1.5, messages: [{ role: 'user', content: 'x' }] } as Anthropic.MessageCreateParamsNonStreaming;
    expect(await caught(anthropic.messages.create(hot))).toBeInstanceOf(Anthropic.BadRequestError);
    expect(await caught(anthropic.messages.create({ model: 'model-chat', max_tokens: 0, messages: [{ role: 'user', content: 'x' }] }))).toBeInstanceOf(
      Anthropic.BadRequestError,
    );
    expect(((await caught(genai.models.generateContent({ model: 'model-chat', contents: 'x', config: { temperature: 5 } }))) as ApiError).status).toBe(400);
  });

  it('should answer 400 for a conversation without messages in every format', async () => {
    expect(await caught(openai.chat.completions.create({ model: 'model-chat', messages: [] }))).toBeInstanceOf(OpenAI.BadRequestError);
    expect(await caught(anthropic.messages.create({ model: 'model-chat', max_tokens: 10, messages: [] }))).toBeInstanceOf(Anthropic.BadRequestError);
    expect(await caught(anthropic.messages.countTokens({ model: 'model-chat', messages: [] }))).toBeInstanceOf(Anthropic.BadRequestError);
    // The SDK refuses empty contents before sending; a client without it gets Google's 400.
    const response = await fetch(`${topology.url}/v1beta/models/model-chat:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': TEST_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
  });

  it('should require the messages version header', async () => {
    const response = await fetch(`${topology.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'model-chat', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const neutral = await fetch(`${topology.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'vendora-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'model-chat', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(neutral.status).toBe(200);
  });

  it('should answer 413 in the client format for a body over the limit', async () => {
    const big = JSON.stringify({ model: 'model-chat', max_tokens: 10, messages: [{ role: 'user', content: 'x'.repeat(2 * 1024 * 1024) }] });
    const response = await fetch(`${topology.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: big,
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
  });

  it('should answer 413, not a reset connection, to uploads still being written when the answer goes out', async () => {
    // 8 MB bodies outlast the loopback socket buffers, so each client is mid-upload when its 413 is sent.
    const huge = JSON.stringify({ model: 'model-chat', max_tokens: 10, messages: [{ role: 'user', content: 'x'.repeat(8 * 1024 * 1024) }] });
    const upload = async () => {
      const response = await fetch(`${topology.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: huge,
      });
      await response.body?.cancel();
      return response.status;
    };
    const statuses = await Promise.all(Array.from({ length: 4 }, async () => [await upload(), await upload(), await upload(), await upload(), await upload()]));
    expect(statuses.flat()).toEqual(Array.from({ length: 20 }, () => 413));
  });

  it.each(Object.entries(MODEL_FOR_PROTOCOL))('should answer 502 in the client format when a %s upstream\'s 200 body is not JSON', async (_upstream, model) => {
    const content = 'x [[sim:malformed]]';
    const toChat = await caught(openai.chat.completions.create({ model, messages: [{ role: 'user', content }] }));
    expect(toChat).toBeInstanceOf(OpenAI.InternalServerError);
    expect((toChat as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((toChat as Error).message).toContain('not JSON');
    const toMessages = await caught(anthropic.messages.create({ model, max_tokens: 10, messages: [{ role: 'user', content }] }));
    expect((toMessages as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
    expect((toMessages as InstanceType<typeof Anthropic.APIError>).type).toBe('api_error');
  });

  describe.each(Object.entries(MODEL_FOR_PROTOCOL))('a stream that breaks after its first byte (%s upstream)', (_upstream, model) => {
    const broken = 'Break soon [[sim:fail_after_chunks=3]]';
    const cut = 'Cut soon [[sim:disconnect_after_chunks=3]]';

    it.each([broken, cut])('should make the openai SDK throw for %s', async (content) => {
      // The stream starts (200): it is its end that must throw.
      const stream = await openai.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content }] });
      const iterate = async () => {
        for await (const chunk of stream) void chunk;
      };
      await expect(iterate()).rejects.toThrow();
    });

    it.each([broken, cut])('should make the openai responses stream throw for %s', async (content) => {
      await expect(openai.responses.stream({ model, input: content }).finalResponse()).rejects.toThrow();
    });

    it.each([broken, cut])('should make the anthropic SDK throw for %s', async (content) => {
      await expect(anthropic.messages.stream({ model, max_tokens: 100, messages: [{ role: 'user', content }] }).finalMessage()).rejects.toThrow();
    });

    it.each([broken, cut])('should make the genai SDK throw for %s', async (content) => {
      const iterate = async () => {
        for await (const chunk of await genai.models.generateContentStream({ model, contents: content })) void chunk;
      };
      await expect(iterate()).rejects.toThrow();
    });
  });

  // Last: a 429 puts the deployment in cooldown for its retry-after.
  it('should relay an upstream 429 with retry-after in the client format', async () => {
    const error = await caught(
      anthropic.messages.create({
        model: MODEL_FOR_PROTOCOL['chat-completions'],
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x [[sim:fail_status=429,fail_retry_after=7]]' }],
      }),
    );
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect((error as InstanceType<typeof Anthropic.RateLimitError>).headers?.get('retry-after')).toBe('7');
  });

  it('should answer 529 overloaded to messages clients and 503 to chat clients', async () => {
    const toMessages = await caught(
      anthropic.messages.create({ model: MODEL_FOR_PROTOCOL.messages, max_tokens: 10, messages: [{ role: 'user', content: 'x [[sim:fail_status=529]]' }] }),
    );
    expect((toMessages as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    const toChat = await caught(
      openai.chat.completions.create({ model: MODEL_FOR_PROTOCOL.messages, messages: [{ role: 'user', content: 'x [[sim:fail_status=529]]' }] }),
    );
    expect((toChat as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
  });
});
