import Anthropic from '@anthropic-ai/sdk';
import { getFreePort } from '@switchyard/testkit';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatModelConfig, eventually, postChat, writeLinkedConfig } from './support/replicas.ts';
import { CHANGE_PROPAGATION_MS, reloadBySighup } from './support/sighup.ts';
import { startSwitchyard, type SwitchyardProcess } from './support/start-process.ts';

const ADMIN_TOKEN = 'admin-token-all-memory-0123456789abcdef';
const SMALL_KEY = 'sk-sy-all-memory-small-0123456789abcdef';
const ADDED_KEY = 'sk-sy-all-memory-added-0123456789abcdef';
const RPM = 3;
const SMALL_TENANT = `{ id: small, limits: { rpm: ${RPM} }, keys: [{ id: k, key: ${SMALL_KEY} }] }`;

/**
 * `switchyard all` without REDIS_URL (the single-process mode): limits, the admin API and
 * config reloads all work from memory (issue 4).
 */
describe('switchyard all without REDIS_URL: limits, admin API and SIGHUP in memory', () => {
  let simulator: SwitchyardProcess;
  let all: SwitchyardProcess;
  let config: { path: string; target: string };

  beforeAll(async () => {
    simulator = await startSwitchyard('simulator', { port: await getFreePort(), readyPath: '/_sim/stats' });
    config = writeLinkedConfig(chatModelConfig(simulator.url, [SMALL_TENANT]));
    // REDIS_URL empty, not merely unset here: one inherited from the test's environment would turn Redis on.
    all = await startSwitchyard('all', { port: await getFreePort(), config: config.path, env: { SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN, REDIS_URL: '' } });
  }, 60_000);

  afterAll(async () => {
    await all?.stop();
    await simulator?.stop();
  });

  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${all.url}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };

  it('should run on in-memory stores', async () => {
    expect(await all.waitForOutput('in-memory stores (no REDIS_URL)')).toBe(true);
  });

  it("should enforce a tenant's rpm: 429 in each client's format with the rate-limit headers", async () => {
    const openai = new OpenAI({ baseURL: `${all.url}/v1`, apiKey: SMALL_KEY, maxRetries: 0 });
    const remaining: Array<string | null> = [];
    for (let index = 0; index < RPM; index++) {
      const { response } = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
      remaining.push(response.headers.get('x-ratelimit-remaining-requests'));
    }
    expect(remaining).toEqual(['2', '1', '0']);

    const refused = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'one too many' }] }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    const rateLimit = refused as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rateLimit.code).toBe('rate_limit_exceeded');
    expect(rateLimit.type).toBe('requests');
    expect(Number(rateLimit.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(rateLimit.headers.get('x-ratelimit-limit-requests')).toBe(String(RPM));
    expect(rateLimit.headers.get('x-ratelimit-remaining-requests')).toBe('0');

    const anthropic = new Anthropic({ baseURL: all.url, apiKey: SMALL_KEY, maxRetries: 0 });
    const messagesRefused = await anthropic.messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(messagesRefused).toBeInstanceOf(Anthropic.RateLimitError);
    const messagesError = messagesRefused as InstanceType<typeof Anthropic.RateLimitError>;
    expect(messagesError.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(Number(messagesError.headers.get('retry-after'))).toBeGreaterThan(0);

    const gemini = await fetch(`${all.url}/v1beta/models/m:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': SMALL_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] }),
    });
    expect(gemini.status).toBe(429);
    expect(await gemini.json()).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
    expect(gemini.headers.get('x-ratelimit-limit-requests')).toBe(String(RPM));
  });

  it('should apply admin API changes to tenants, keys and limits', async () => {
    expect((await admin('POST', '/tenants', { id: 'runtime', models: ['m'], limits: { rpm: 2 } })).status).toBe(201);
    const issued = await admin('POST', '/tenants/runtime/keys', { id: 'r1' });
    expect(issued.status).toBe(201);
    const key = String(issued.json.key);
    const chat = async (content: string) => (await postChat(all.url, key, content)).status;
    expect(await eventually(async () => (await chat('first')) === 200, CHANGE_PROPAGATION_MS)).toBe(true);
    expect(await chat('second')).toBe(200);
    expect(await chat('third')).toBe(429);

    // Raising the limit gives room at once: the window still counts the two admitted.
    expect((await admin('PATCH', '/tenants/runtime', { limits: { rpm: 4 } })).status).toBe(200);
    expect(await eventually(async () => (await chat('after raise')) === 200, CHANGE_PROPAGATION_MS)).toBe(true);
    expect(await chat('fourth')).toBe(200);
    expect(await chat('fifth')).toBe(429);

    expect((await admin('DELETE', '/tenants/runtime/keys/r1')).status).toBe(200);
    expect(await eventually(async () => (await chat('revoked')) === 401, CHANGE_PROPAGATION_MS)).toBe(true);
  });

  it('should apply an edited config file on SIGHUP within 2 s', async () => {
    const { heldBefore, elapsedMs } = await reloadBySighup(
      all,
      config.target,
      chatModelConfig(simulator.url, [SMALL_TENANT, `{ id: added, keys: [{ id: k, key: ${ADDED_KEY} }] }`]),
      [async () => (await postChat(all.url, ADDED_KEY, 'added by reload')).status === 200],
    );
    expect(heldBefore).toEqual([false]);
    expect(elapsedMs[0]).toBeLessThan(CHANGE_PROPAGATION_MS);
    expect(await all.waitForOutput('"msg":"config reload"')).toBe(true);
    expect(all.child.exitCode).toBeNull();
    // The reload kept the file's other tenant and its spent window.
    expect((await postChat(all.url, SMALL_KEY, 'still limited')).status).toBe(429);
  });

  it('should never write a key or the admin token to the output', async () => {
    // Stopped first: whatever the process still held in its log buffer is written at exit.
    await all.stop();
    for (const secret of [SMALL_KEY, ADDED_KEY, ADMIN_TOKEN]) expect(all.output()).not.toContain(secret);
  });
});
