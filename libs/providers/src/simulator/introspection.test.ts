import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from './index.ts';
import type { RunningSimulator } from './index.ts';
import type { LoggedRequest } from './request-log.ts';

let simulator: RunningSimulator;

beforeAll(async () => {
  simulator = await startSimulator({ port: 0 });
});

afterAll(async () => {
  await simulator.close();
});

beforeEach(async () => {
  await fetch(`${simulator.url}/_sim/requests`, { method: 'DELETE' });
});

async function loggedRequests(): Promise<LoggedRequest[]> {
  return (await fetch(`${simulator.url}/_sim/requests`)).json() as Promise<LoggedRequest[]>;
}

describe('/_sim/requests', () => {
  it('should record each SDK request with its parsed body and redacted credentials', async () => {
    await new OpenAI({ apiKey: 'sk-secret-1', baseURL: `${simulator.url}/v1` }).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'logged' }],
    });
    await new Anthropic({ apiKey: 'sk-secret-2', baseURL: simulator.url }).messages.create({
      model: 'm',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'logged' }],
    });
    await new GoogleGenAI({ apiKey: 'secret-3', httpOptions: { baseUrl: simulator.url } }).models.generateContent({
      model: 'sim-gemini',
      contents: 'logged',
    });
    await fetch(`${simulator.url}/v1beta/models/sim-gemini:generateContent?key=secret-4`, {
      method: 'POST',
      body: JSON.stringify({ contents: [{ parts: [{ text: 'logged' }] }] }),
    });
    await fetch(`${simulator.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'x-api-key': 'secret-5', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'logged' }] }),
    });

    const log = await loggedRequests();
    expect(log.map((entry) => `${entry.method} ${entry.path}`)).toEqual([
      'POST /v1/chat/completions',
      'POST /v1/messages',
      // js-genai 3.x calls v1, not v1beta (protocols.md §1.2).
      'POST /v1/models/sim-gemini:generateContent',
      'POST /v1beta/models/sim-gemini:generateContent?key=<redacted>',
      'POST /v1/messages/count_tokens',
    ]);
    expect(log[0]?.headers.authorization).toBe('<redacted>');
    expect(log[0]?.body).toMatchObject({ model: 'm', messages: [{ role: 'user', content: 'logged' }] });
    // @anthropic-ai/sdk 1.x sends an API key as a Bearer token, with its own version date.
    expect(log[1]?.headers.authorization).toBe('<redacted>');
    expect(log[1]?.headers['anthropic-version']).toBeDefined();
    expect(log[4]?.headers['x-api-key']).toBe('<redacted>');
    expect(log[2]?.headers['x-goog-api-key']).toBe('<redacted>');
    expect(JSON.stringify(log)).not.toMatch(/secret-\d/);
  });

  it('should forget everything on DELETE', async () => {
    await fetch(`${simulator.url}/v1/models`);
    expect(await loggedRequests()).toHaveLength(1);
    const cleared = await fetch(`${simulator.url}/_sim/requests`, { method: 'DELETE' });
    expect(cleared.status).toBe(204);
    expect(await loggedRequests()).toEqual([]);
  });
});

describe('/_sim/stats', () => {
  it('should count requests and connections but not introspection calls', async () => {
    const before = simulator.stats();
    await fetch(`${simulator.url}/v1/models`).then((response) => response.arrayBuffer());
    const stats = (await (await fetch(`${simulator.url}/_sim/stats`)).json()) as typeof before;
    expect(stats.requests).toBe(before.requests + 1);
    expect(stats.openConnections).toBeGreaterThanOrEqual(1);
    expect(Object.keys(stats).sort()).toEqual(['abortedStreams', 'closedConnections', 'openConnections', 'requests']);
  });
});

describe('errors outside the knobs', () => {
  it('should answer an unknown path with 404 in the OpenAI envelope', async () => {
    const response = await fetch(`${simulator.url}/v2/unknown`, { method: 'POST' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { message: 'Invalid URL (POST /v2/unknown)', type: 'invalid_request_error', param: null, code: null },
    });
  });

  it('should answer a body that is not JSON with 400 in the vendor envelope', async () => {
    const response = await fetch(`${simulator.url}/v1beta/models/sim-gemini:generateContent`, { method: 'POST', body: '{nope' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
  });

  it('should answer a non-SSE streamGenerateContent with one JSON array', async () => {
    const response = await fetch(`${simulator.url}/v1beta/models/sim-gemini:streamGenerateContent`, {
      method: 'POST',
      body: JSON.stringify({ contents: [{ parts: [{ text: 'array [[sim:words=5]]' }] }] }),
    });
    const chunks = (await response.json()) as unknown[];
    expect(chunks).toHaveLength(5);
  });
});

describe('close()', () => {
  it('should end open streams so nothing keeps the process alive', async () => {
    const own = await startSimulator({ defaults: { chunk_delay_ms: 1000 } });
    const client = new OpenAI({ apiKey: 'k', baseURL: `${own.url}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'slow' }], stream: true });
    const reading = (async () => {
      for await (const _chunk of stream);
    })().then(
      () => 'ended',
      () => 'failed',
    );
    const started = performance.now();
    await own.close();
    expect(performance.now() - started).toBeLessThan(500);
    expect(['ended', 'failed']).toContain(await reading);
    expect(own.stats().openConnections).toBe(0);
  });
});
