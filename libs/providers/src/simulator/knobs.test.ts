import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from './index.ts';
import type { RunningSimulator } from './index.ts';

let simulator: RunningSimulator;
let openai: OpenAI;
let anthropic: Anthropic;
let gemini: GoogleGenAI;

beforeAll(async () => {
  simulator = await startSimulator({ port: 0 });
  openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${simulator.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL: simulator.url, maxRetries: 0 });
  gemini = new GoogleGenAI({ apiKey: 'goog-test', httpOptions: { baseUrl: simulator.url } });
});

afterAll(async () => {
  await simulator.close();
});

function chat(content: string) {
  return { model: 'sim-chat', messages: [{ role: 'user' as const, content }] };
}

function messages(content: string) {
  return { model: 'sim-messages', max_tokens: 100, messages: [{ role: 'user' as const, content }] };
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

async function drain(iterable: AsyncIterable<unknown>): Promise<void> {
  for await (const _event of iterable);
}

describe('fail_status', () => {
  it('should render the OpenAI envelope and retry-after on a 429', async () => {
    const error = await caught(openai.chat.completions.create(chat('x'), { headers: { 'x-sim-fail-status': '429', 'x-sim-fail-retry-after': '7' } }));
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const rateLimit = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rateLimit.status).toBe(429);
    expect(rateLimit.headers.get('retry-after')).toBe('7');
    expect(rateLimit.error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded', param: null });
  });

  it('should render the responses envelope on a 500', async () => {
    const error = await caught(openai.responses.create({ model: 'sim-chat', input: 'x' }, { headers: { 'x-sim-fail-status': '500' } }));
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.InternalServerError>).error).toMatchObject({ type: 'server_error' });
  });

  it('should render the messages envelope with overloaded_error on a 529', async () => {
    const error = await caught(anthropic.messages.create(messages('x'), { headers: { 'x-sim-fail-status': '529' } }));
    expect(error).toBeInstanceOf(Anthropic.APIError);
    const apiError = error as InstanceType<typeof Anthropic.APIError>;
    expect(apiError.status).toBe(529);
    expect(apiError.error).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    expect(apiError.requestID).toMatch(/^req_/);
  });

  it('should render the Gemini envelope with its status name', async () => {
    const error = await caught(
      gemini.models.generateContent({ model: 'sim-gemini', contents: 'x', config: { httpOptions: { headers: { 'x-sim-fail-status': '503' } } } }),
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
    expect((error as ApiError).message).toContain('UNAVAILABLE');
  });

  it('should fail before the stream starts for a streaming request', async () => {
    const error = await caught(drain(anthropic.messages.stream(messages('[[sim:fail_status=401]]'))));
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
  });
});

describe('fail_rate', () => {
  it('should fail a deterministic share of requests', async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const response = await fetch(`${simulator.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-sim-fail-rate': '0.25', 'x-sim-fail-status': '503' },
        body: JSON.stringify(chat('x')),
      });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses.filter((status) => status === 503)).toHaveLength(2);
    expect(statuses.filter((status) => status === 200)).toHaveLength(6);
  });
});

describe('fail_after_chunks', () => {
  it('should end a chat stream with an error chunk the SDK throws', async () => {
    const stream = await openai.chat.completions.create({ ...chat('[[sim:fail_after_chunks=3]]'), stream: true });
    const error = await caught(drain(stream));
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain('Simulated failure after 3 events');
  });

  it('should end a responses stream with an error event the SDK throws', async () => {
    const error = await caught(openai.responses.stream({ model: 'sim-chat', input: 'x [[sim:fail_after_chunks=4]]' }).finalResponse());
    expect(error).toBeInstanceOf(OpenAI.APIError);
  });

  it('should end a messages stream with overloaded_error', async () => {
    const error = await caught(anthropic.messages.stream(messages('x [[sim:fail_after_chunks=2]]')).finalMessage());
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { type: 'overloaded_error' } });
  });

  it('should end a Gemini stream with an in-band error the SDK throws', async () => {
    const stream = await gemini.models.generateContentStream({ model: 'sim-gemini', contents: 'x [[sim:fail_after_chunks=2]]' });
    const error = await caught(drain(stream));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(500);
  });
});

describe('disconnect_after_chunks', () => {
  it('should cut the stream without a terminator', async () => {
    const response = await fetch(`${simulator.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sim-disconnect-after-chunks': '2' },
      body: JSON.stringify({ ...chat('x'), stream: true }),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    const failure = await caught(
      (async () => {
        for (let read = await reader.read(); !read.done; read = await reader.read()) text += Buffer.from(read.value).toString();
      })(),
    );
    expect(failure).toBeInstanceOf(Error);
    expect(text.split('\n\n').filter((event) => event.startsWith('data: '))).toHaveLength(2);
    expect(text).not.toContain('[DONE]');
    expect(simulator.stats().abortedStreams).toBe(0);
  });
});

describe('malformed', () => {
  it('should send an unparseable body', async () => {
    const error = await caught(openai.chat.completions.create(chat('x'), { headers: { 'x-sim-malformed': 'true' } }));
    expect(error).toBeInstanceOf(Error);
  });

  it('should send an unparseable stream event', async () => {
    const error = await caught(anthropic.messages.stream(messages('x [[sim:malformed]]')).finalMessage());
    expect(error).toBeInstanceOf(Error);
  });
});

describe('shape knobs', () => {
  it('should take words and chunks from inline directives and strip them from the echo', async () => {
    const stream = await openai.chat.completions.create({ ...chat('Hi [[sim:words=20,chunks=4]] there'), stream: true });
    const pieces: string[] = [];
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content) pieces.push(chunk.choices[0].delta.content);
    expect(pieces).toHaveLength(4);
    expect(pieces.join('').startsWith('Simulated reply to: Hi there.')).toBe(true);
    expect(pieces.join('').split(' ')).toHaveLength(20);
  });

  it('should let inline directives win over headers and headers over defaults', async () => {
    const custom = await startSimulator({ defaults: { words: 30 } });
    try {
      const client = new OpenAI({ apiKey: 'k', baseURL: `${custom.url}/v1`, maxRetries: 0 });
      const wordCount = async (content: string, headers: Record<string, string> = {}) =>
        (await client.chat.completions.create(chat(content), { headers })).usage?.completion_tokens;
      expect(await wordCount('a')).toBe(30);
      expect(await wordCount('a', { 'x-sim-words': '8' })).toBe(8);
      expect(await wordCount('a [[sim:words=6]]', { 'x-sim-words': '8' })).toBe(6);
    } finally {
      await custom.close();
    }
  });

  const usageKnobs = { 'x-sim-cached-tokens': '10', 'x-sim-reasoning-tokens': '5' };

  it('should report cached and reasoning tokens in the OpenAI totals', async () => {
    const completion = await openai.chat.completions.create(chat('abcd'), { headers: usageKnobs });
    expect(completion.usage).toMatchObject({
      prompt_tokens: 1 + 10,
      completion_tokens: 12 + 5,
      total_tokens: 11 + 17,
      prompt_tokens_details: { cached_tokens: 10 },
      completion_tokens_details: { reasoning_tokens: 5 },
    });
  });

  it('should report cached and reasoning tokens in Gemini fields', async () => {
    const response = await gemini.models.generateContent({ model: 'sim-gemini', contents: 'abcd', config: { httpOptions: { headers: usageKnobs } } });
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: 1 + 10,
      cachedContentTokenCount: 10,
      candidatesTokenCount: 12,
      thoughtsTokenCount: 5,
      totalTokenCount: 11 + 12 + 5,
    });
  });

  it('should leave usage out with no_usage', async () => {
    const completion = await openai.chat.completions.create(chat('x [[sim:no_usage]]'));
    expect(completion.usage).toBeUndefined();
    const stream = await openai.chat.completions.create({ ...chat('x [[sim:no_usage]]'), stream: true, stream_options: { include_usage: true } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
  });
});

describe('pacing', () => {
  it('should wait latency_ms before answering', async () => {
    const started = performance.now();
    await openai.chat.completions.create(chat('x [[sim:latency_ms=80]]'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(75);
  });

  it('should open the stream before ttft_ms and space events by chunk_delay_ms', async () => {
    const started = performance.now();
    const stream = await openai.chat.completions.create({ ...chat('x [[sim:ttft_ms=150,chunk_delay_ms=10,words=5]]'), stream: true });
    const headersAt = performance.now() - started;
    let firstEventAt: number | undefined;
    for await (const _chunk of stream) firstEventAt ??= performance.now() - started;
    const total = performance.now() - started;
    // Lower bounds only: a loaded machine may add delay, never remove it.
    expect((firstEventAt ?? 0) - headersAt).toBeGreaterThanOrEqual(140);
    // After the role chunk: 5 words, finish and [DONE], each 10 ms apart.
    expect(total - (firstEventAt ?? 0)).toBeGreaterThanOrEqual(7 * 10 - 5);
  });

  it('should count a client that leaves mid-stream as an aborted stream', async () => {
    const before = simulator.stats();
    const controller = new AbortController();
    const stream = await openai.chat.completions.create(
      { ...chat('x [[sim:chunk_delay_ms=50,words=40]]'), stream: true },
      { signal: controller.signal },
    );
    await caught(
      (async () => {
        for await (const _chunk of stream) controller.abort();
      })(),
    );
    // The count must follow the close promptly; the bound is loose so a loaded machine passes.
    const deadline = performance.now() + 1000;
    while (simulator.stats().abortedStreams === before.abortedStreams && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(simulator.stats().abortedStreams).toBe(before.abortedStreams + 1);
  });
});
