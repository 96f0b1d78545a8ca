import Anthropic from '@anthropic-ai/sdk';
import { getFreePort, startRedis, type RedisServer } from '@switchyard/testkit';
import { Redis } from 'ioredis';
import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSwitchyard, type SwitchyardProcess } from './support/start-process.ts';
import { writeConfig } from './support/scratch.ts';

const ADMIN_TOKEN = 'admin-token-e2e-0123456789abcdef';
const UPSTREAM_KEY = 'upstream-secret-admin-e2e-0123456789';
/** Propagation bound of admin changes to every ingress (issue 4). */
const PROPAGATION_MS = 2_000;
/** How long a probe loop keeps trying, so a slow propagation is measured rather than cut off. */
const PROBE_LIMIT_MS = 6_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

interface Answer {
  status: number;
  body: string;
  json(): Record<string, unknown>;
}

interface KeyIssued {
  id: string;
  tenantId: string;
  key: string;
}

/**
 * The admin API against a split deployment (issue 4): catalog with Redis, one router, two
 * ingresses, a usage worker. Runtime tenants and keys, and their changes, reach every ingress
 * within seconds; tenants see nothing of each other.
 */
describe('admin API, runtime keys and tenant isolation (split topology, two ingresses)', () => {
  let redis: RedisServer;
  const processes: SwitchyardProcess[] = [];
  let catalog: SwitchyardProcess;
  let ingresses: SwitchyardProcess[] = [];
  /** Every plaintext key the admin API handed out: none may appear in any output or in Redis. */
  const issuedKeys: string[] = [];
  /** Requests of each tenant that passed ingress authentication (and so produce one usage event each). */
  const routed: Record<string, number> = {};
  const startedAt = Date.now();
  /** tenant-a's first key, valid throughout. */
  let mainKeyA = '';

  beforeAll(async () => {
    redis = await startRedis();
    const simulator = await startSwitchyard('simulator', { port: await getFreePort(), readyPath: '/_sim/stats' });
    processes.push(simulator);
    const config = writeConfig(
      `
providers:
  up-chat: { protocol: chat-completions, baseUrl: ${simulator.url}/v1, apiKey: \${UPSTREAM_KEY} }
  up-messages: { protocol: messages, baseUrl: ${simulator.url}, apiKey: \${UPSTREAM_KEY} }
models:
  - { name: model-a, deployments: [{ provider: up-chat, model: sim-a }], maxOutputTokens: 256 }
  - { name: model-b, deployments: [{ provider: up-messages, model: sim-b }], maxOutputTokens: 256 }
  - { name: model-shared, deployments: [{ provider: up-chat, model: sim-shared }], maxOutputTokens: 256 }
`,
    );
    const env = { REDIS_URL: redis.url, UPSTREAM_KEY };
    catalog = await startSwitchyard('catalog', { port: await getFreePort(), config, env: { ...env, SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN } });
    processes.push(catalog);
    const router = await startSwitchyard('router', { port: await getFreePort(), env: { ...env, SWITCHYARD_CATALOG_URL: catalog.url } });
    processes.push(router);
    ingresses = await Promise.all(
      [0, 1].map(async () =>
        startSwitchyard('ingress', {
          port: await getFreePort(),
          env: { ...env, SWITCHYARD_CATALOG_URL: catalog.url, SWITCHYARD_ROUTER_URL: router.url },
        }),
      ),
    );
    processes.push(...ingresses);
    // The usage worker, so GET /admin/v1/usage has something to show.
    processes.push(await startSwitchyard('worker', { port: await getFreePort(), env }));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(processes.map((process) => process.stop()));
    await redis?.stop();
  });

  /** An admin call; `token: null` sends no authorization header. */
  const admin = async (method: string, path: string, body?: unknown, token: string | null = ADMIN_TOKEN): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${catalog.url}/admin/v1${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return answer(response);
  };

  const issueKey = async (tenantId: string, body: unknown = {}): Promise<KeyIssued> => {
    const created = await admin('POST', `/tenants/${tenantId}/keys`, body);
    expect(created.status, created.body).toBe(201);
    const issued = created.json() as unknown as KeyIssued;
    expect(issued.key).toMatch(/^sk-sy-/);
    issuedKeys.push(issued.key);
    return issued;
  };

  /** Ingress answers 401 (authentication) and 429 (admission) itself; everything else went to the router. */
  const reachedRouter = (result: Answer) => result.status !== 401 && result.status !== 429;

  /** A chat completion through one ingress; counts it as routed for its tenant unless ingress refused it. */
  const chat = async (ingress: SwitchyardProcess, key: string, tenant: string, model = 'model-a'): Promise<Answer> => {
    const response = await fetch(`${ingress.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello [[sim:words=2]]' }] }),
    });
    const result = await answer(response);
    if (reachedRouter(result)) routed[tenant] = (routed[tenant] ?? 0) + 1;
    return result;
  };

  const messages = async (ingress: SwitchyardProcess, key: string, tenant: string, model: string): Promise<Answer> => {
    const response = await fetch(`${ingress.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model, max_tokens: 16, messages: [{ role: 'user', content: 'hello [[sim:words=2]]' }] }),
    });
    const result = await answer(response);
    if (reachedRouter(result)) routed[tenant] = (routed[tenant] ?? 0) + 1;
    return result;
  };

  const modelIds = async (ingress: SwitchyardProcess, key: string): Promise<string[]> => {
    const response = await fetch(`${ingress.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: Array<{ id: string }> }).data.map((model) => model.id).sort();
  };

  /**
   * Runs `probe` against every ingress in parallel until it holds, and returns how long each
   * ingress took from now (Infinity when it never held within PROBE_LIMIT_MS).
   */
  const propagation = async (probe: (ingress: SwitchyardProcess) => Promise<boolean>): Promise<number[]> => {
    const started = performance.now();
    return Promise.all(
      ingresses.map(async (ingress) => {
        while (performance.now() - started < PROBE_LIMIT_MS) {
          if (await probe(ingress)) return performance.now() - started;
          await sleep(20);
        }
        return Number.POSITIVE_INFINITY;
      }),
    );
  };

  const expectChatUnauthorized = (result: Answer) => {
    expect(result.status).toBe(401);
    expect(result.json()).toMatchObject({ error: { type: 'authentication_error', code: 'invalid_api_key', message: expect.any(String) } });
  };

  const expectRefusedInEveryFormat = async (key: string) => {
    for (const ingress of ingresses) {
      const openai = new OpenAI({ baseURL: `${ingress.url}/v1`, apiKey: key, maxRetries: 0 });
      const anthropic = new Anthropic({ baseURL: ingress.url, apiKey: key, maxRetries: 0 });
      const chatError = await openai.chat.completions.create({ model: 'model-a', messages: [{ role: 'user', content: 'x' }] }).then(() => undefined, (error: unknown) => error);
      expect(chatError).toBeInstanceOf(OpenAI.AuthenticationError);
      const messagesError = await anthropic.messages
        .create({ model: 'model-a', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] })
        .then(() => undefined, (error: unknown) => error);
      expect(messagesError).toBeInstanceOf(Anthropic.AuthenticationError);
      expect((messagesError as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
      const gemini = await fetch(`${ingress.url}/v1beta/models/model-a:generateContent`, {
        method: 'POST',
        headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] }),
      });
      expect(gemini.status).toBe(401);
      expect(await gemini.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
    }
  };

  it('should answer 401 to admin calls without a token or with a wrong one', async () => {
    for (const token of [null, 'wrong-token', `${ADMIN_TOKEN}x`, ADMIN_TOKEN.slice(0, -1)]) {
      for (const [method, path, body] of [
        ['GET', '/tenants', undefined],
        ['POST', '/tenants', { id: 'intruder' }],
        ['GET', '/usage?tenant=tenant-a', undefined],
      ] as const) {
        const result = await admin(method, path, body, token);
        expect(result.status, `${method} ${path} with token ${String(token)}`).toBe(401);
        expect(result.json()).toMatchObject({ error: { message: expect.any(String) } });
      }
    }
    const basic = await fetch(`${catalog.url}/admin/v1/tenants`, { headers: { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` } });
    expect(basic.status).toBe(401);
    // The public ingresses serve neither the admin API nor the catalog snapshot (it holds upstream keys).
    for (const ingress of ingresses) {
      const adminOnIngress = await fetch(`${ingress.url}/admin/v1/tenants`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(adminOnIngress.status).toBe(404);
      const snapshot = await fetch(`${ingress.url}/internal/v1/catalog`);
      expect(snapshot.status).toBe(404);
      expect(await snapshot.text()).not.toContain(UPSTREAM_KEY);
    }
    // Nothing was created by the refused calls.
    expect((await admin('GET', '/tenants/intruder')).status).toBe(404);
    expect((await admin('GET', '/tenants')).status).toBe(200);
  });

  it('should make a key created through the admin API work on both ingresses within 2 s', async () => {
    expect((await admin('POST', '/tenants', { id: 'tenant-a', models: ['model-a', 'model-shared'] })).status).toBe(201);
    expect((await admin('POST', '/tenants', { id: 'tenant-b', models: ['model-b', 'model-shared'] })).status).toBe(201);
    const issued = await issueKey('tenant-a', { id: 'a-main' });
    expect(issued).toMatchObject({ id: 'a-main', tenantId: 'tenant-a' });
    mainKeyA = issued.key;
    const elapsed = await propagation(async (ingress) => (await chat(ingress, issued.key, 'tenant-a')).status === 200);
    for (const ms of elapsed) expect(ms).toBeLessThan(PROPAGATION_MS);
    for (const ingress of ingresses) {
      const result = await chat(ingress, issued.key, 'tenant-a');
      expect(result.status).toBe(200);
      expect(result.json()).toMatchObject({ object: 'chat.completion', choices: [{ message: { role: 'assistant' } }] });
      expect((await messages(ingress, issued.key, 'tenant-a', 'model-shared')).status).toBe(200);
    }
  });

  it('should refuse a revoked key on both ingresses within 2 s, with a 401 in each client format', async () => {
    const issued = await issueKey('tenant-a', { id: 'a-revoked' });
    const ready = await propagation(async (ingress) => (await chat(ingress, issued.key, 'tenant-a')).status === 200);
    for (const ms of ready) expect(ms).toBeLessThan(PROPAGATION_MS);

    const revoked = await admin('DELETE', '/tenants/tenant-a/keys/a-revoked');
    expect(revoked.status).toBe(200);
    expect(revoked.json()).toMatchObject({ id: 'a-revoked', tenantId: 'tenant-a', deleted: true });
    const elapsed = await propagation(async (ingress) => (await chat(ingress, issued.key, 'tenant-a')).status === 401);
    for (const ms of elapsed) expect(ms).toBeLessThan(PROPAGATION_MS);
    for (const ingress of ingresses) expectChatUnauthorized(await chat(ingress, issued.key, 'tenant-a'));
    await expectRefusedInEveryFormat(issued.key);
    expect((await admin('GET', '/tenants/tenant-a/keys/a-revoked')).status).toBe(404);
  });

  it('should refuse the old key and accept the new one on both ingresses within 2 s of a rotation', async () => {
    const original = await issueKey('tenant-a', { id: 'a-rotated' });
    const ready = await propagation(async (ingress) => (await chat(ingress, original.key, 'tenant-a')).status === 200);
    for (const ms of ready) expect(ms).toBeLessThan(PROPAGATION_MS);

    const rotation = await admin('POST', '/tenants/tenant-a/keys/a-rotated/rotate');
    expect(rotation.status).toBe(200);
    const rotated = rotation.json() as unknown as KeyIssued & { rotatedAt?: string };
    issuedKeys.push(rotated.key);
    expect(rotated).toMatchObject({ id: 'a-rotated', tenantId: 'tenant-a', key: expect.stringMatching(/^sk-sy-/) });
    expect(rotated.key).not.toBe(original.key);
    const elapsed = await propagation(async (ingress) => {
      const [oldKey, newKey] = await Promise.all([chat(ingress, original.key, 'tenant-a'), chat(ingress, rotated.key, 'tenant-a')]);
      return oldKey.status === 401 && newKey.status === 200;
    });
    for (const ms of elapsed) expect(ms).toBeLessThan(PROPAGATION_MS);
    for (const ingress of ingresses) {
      expectChatUnauthorized(await chat(ingress, original.key, 'tenant-a'));
      expect((await chat(ingress, rotated.key, 'tenant-a')).status).toBe(200);
    }
    await expectRefusedInEveryFormat(original.key);
  });

  it('should never show a key or its hash in key listings', async () => {
    const issued = await issueKey('tenant-b', { id: 'b-main' });
    const list = await admin('GET', '/tenants/tenant-a/keys');
    const listB = await admin('GET', '/tenants/tenant-b/keys');
    const one = await admin('GET', '/tenants/tenant-b/keys/b-main');
    for (const result of [list, listB, one]) expect(result.status).toBe(200);
    expect((list.json().data as Array<{ id: string }>).map((key) => key.id).sort()).toEqual(['a-main', 'a-rotated']);
    expect((listB.json().data as Array<{ id: string }>).map((key) => key.id)).toEqual(['b-main']);
    expect(one.json()).toMatchObject({ id: 'b-main', tenantId: 'tenant-b' });
    const listed = [list.body, listB.body, one.body, (await admin('GET', '/tenants')).body, (await admin('GET', '/tenants/tenant-a')).body].join('\n');
    expect(listed).not.toMatch(/sk-sy-/);
    for (const key of [...issuedKeys, issued.key]) {
      expect(listed).not.toContain(key);
      expect(listed).not.toContain(createHash('sha256').update(key).digest('hex'));
    }
    for (const entry of [...(list.json().data as object[]), one.json()]) {
      expect(Object.keys(entry)).not.toContain('key');
      expect(Object.keys(entry)).not.toContain('sha256');
    }
  });

  it('should apply a per-key model allow-list set by PATCH on both ingresses', async () => {
    const key = (await issueKey('tenant-a', { id: 'a-narrow' })).key;
    const ready = await propagation(async (ingress) => (await chat(ingress, key, 'tenant-a', 'model-shared')).status === 200);
    for (const ms of ready) expect(ms).toBeLessThan(PROPAGATION_MS);
    for (const ingress of ingresses) expect(await modelIds(ingress, key)).toEqual(['model-a', 'model-shared']);

    const patched = await admin('PATCH', '/tenants/tenant-a/keys/a-narrow', { models: ['model-a'] });
    expect(patched.status).toBe(200);
    expect(patched.json()).toMatchObject({ id: 'a-narrow', models: ['model-a'] });
    const elapsed = await propagation(async (ingress) => (await chat(ingress, key, 'tenant-a', 'model-shared')).status === 404);
    for (const ms of elapsed) expect(ms).toBeLessThan(PROPAGATION_MS);
    for (const ingress of ingresses) {
      const refused = await chat(ingress, key, 'tenant-a', 'model-shared');
      expect(refused.status).toBe(404);
      expect(refused.json()).toMatchObject({ error: { code: 'model_not_found', type: 'invalid_request_error' } });
      const refusedMessages = await messages(ingress, key, 'tenant-a', 'model-shared');
      expect(refusedMessages.status).toBe(404);
      expect(refusedMessages.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
      expect((await chat(ingress, key, 'tenant-a', 'model-a')).status).toBe(200);
      expect(await modelIds(ingress, key)).toEqual(['model-a']);
      const single = await fetch(`${ingress.url}/v1/models/model-shared`, { headers: { authorization: `Bearer ${key}` } });
      expect(single.status).toBe(404);
      // The tenant's other keys keep the tenant's list.
      expect(await modelIds(ingress, mainKeyA)).toEqual(['model-a', 'model-shared']);
    }

    // null removes the override: the tenant's list applies again.
    expect((await admin('PATCH', '/tenants/tenant-a/keys/a-narrow', { models: null })).status).toBe(200);
    const restored = await propagation(async (ingress) => (await chat(ingress, key, 'tenant-a', 'model-shared')).status === 200);
    for (const ms of restored) expect(ms).toBeLessThan(PROPAGATION_MS);
  });

  it('should keep tenants apart: stored responses, model lists and usage', async () => {
    const keyA = mainKeyA;
    const keyB = (await issueKey('tenant-b', { id: 'b-isolation' })).key;
    const ready = await propagation(async (ingress) => (await messages(ingress, keyB, 'tenant-b', 'model-b')).status === 200);
    for (const ms of ready) expect(ms).toBeLessThan(PROPAGATION_MS);

    // B stores a response; A cannot read or delete it through either ingress, B can.
    const created = await fetch(`${ingresses[0]?.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keyB}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'model-b', input: 'remember this [[sim:words=3]]', store: true }),
    });
    routed['tenant-b'] = (routed['tenant-b'] ?? 0) + 1;
    expect(created.status).toBe(200);
    const responseId = ((await created.json()) as { id: string }).id;
    for (const ingress of ingresses) {
      const asA = await fetch(`${ingress.url}/v1/responses/${responseId}`, { headers: { authorization: `Bearer ${keyA}` } });
      expect(asA.status).toBe(404);
      expect(await asA.json()).toMatchObject({ error: { message: expect.any(String) } });
      const deleteAsA = await fetch(`${ingress.url}/v1/responses/${responseId}`, { method: 'DELETE', headers: { authorization: `Bearer ${keyA}` } });
      expect(deleteAsA.status).toBe(404);
      const asB = await fetch(`${ingress.url}/v1/responses/${responseId}`, { headers: { authorization: `Bearer ${keyB}` } });
      expect(asB.status).toBe(200);
      expect(await asB.json()).toMatchObject({ id: responseId });
    }

    // Model lists: each tenant sees its own allow-list only, in every list style.
    for (const ingress of ingresses) {
      expect(await modelIds(ingress, keyA)).toEqual(['model-a', 'model-shared']);
      expect(await modelIds(ingress, keyB)).toEqual(['model-b', 'model-shared']);
      const geminiList = await fetch(`${ingress.url}/v1beta/models`, { headers: { 'x-goog-api-key': keyA } });
      const geminiNames = ((await geminiList.json()) as { models: Array<{ name: string }> }).models.map((model) => model.name);
      expect(geminiNames).not.toContain('models/model-b');
      const messagesList = await fetch(`${ingress.url}/v1/models`, { headers: { 'x-api-key': keyA, 'anthropic-version': '2023-06-01' } });
      expect(JSON.stringify(await messagesList.json())).not.toContain('model-b');
      expect((await fetch(`${ingress.url}/v1/models/model-b`, { headers: { authorization: `Bearer ${keyA}` } })).status).toBe(404);
      const refused = await chat(ingress, keyA, 'tenant-a', 'model-b');
      expect(refused.status).toBe(404);
      expect(refused.json()).toMatchObject({ error: { code: 'model_not_found' } });
    }

    // Usage: each tenant's rows hold its own requests only, counted exactly.
    const range = `from=${utcDay(startedAt - 86_400_000)}&to=${utcDay(Date.now())}`;
    const totalOf = async (tenant: string) => {
      const result = await admin('GET', `/usage?tenant=${tenant}&groupBy=key&${range}`);
      expect(result.status, result.body).toBe(200);
      const rows = result.json().data as Array<{ tenantId: string; keyId: string; requests: number }>;
      return { rows, requests: rows.reduce((sum, row) => sum + row.requests, 0) };
    };
    const expectedA = routed['tenant-a'] ?? 0;
    const expectedB = routed['tenant-b'] ?? 0;
    let usageA = await totalOf('tenant-a');
    let usageB = await totalOf('tenant-b');
    for (let attempt = 0; attempt < 100 && (usageA.requests < expectedA || usageB.requests < expectedB); attempt++) {
      await sleep(100);
      [usageA, usageB] = await Promise.all([totalOf('tenant-a'), totalOf('tenant-b')]);
    }
    expect(usageA.requests).toBe(expectedA);
    expect(usageB.requests).toBe(expectedB);
    expect(new Set(usageA.rows.map((row) => row.tenantId))).toEqual(new Set(['tenant-a']));
    expect(new Set(usageB.rows.map((row) => row.tenantId))).toEqual(new Set(['tenant-b']));
    expect(usageA.rows.map((row) => row.keyId)).not.toContain('b-main');
    expect(usageA.rows.map((row) => row.keyId)).not.toContain('b-isolation');
    expect(usageB.rows.map((row) => row.keyId).sort()).toEqual(['b-isolation']);
    const modelsA = await admin('GET', `/usage?tenant=tenant-a&groupBy=model&${range}`);
    const modelRowsA = modelsA.json().data as Array<{ model: string; errors: number; requests: number }>;
    // A's only model-b request was refused 404 (counted as an error of A's), never B's successes.
    const modelBRow = modelRowsA.find((row) => row.model === 'model-b');
    if (modelBRow !== undefined) expect(modelBRow.errors).toBe(modelBRow.requests);
  });

  it('should apply tenant allow-list and key limit changes, then stop every key of a deleted tenant, on both ingresses within 2 s', async () => {
    expect((await admin('POST', '/tenants', { id: 'tenant-c', models: ['model-a', 'model-shared'] })).status).toBe(201);
    const first = await issueKey('tenant-c', { id: 'c-one' });
    const second = await issueKey('tenant-c', { id: 'c-two' });
    const ready = await propagation(async (ingress) => {
      const [one, two] = await Promise.all([chat(ingress, first.key, 'tenant-c', 'model-shared'), chat(ingress, second.key, 'tenant-c', 'model-shared')]);
      return one.status === 200 && two.status === 200;
    });
    for (const ms of ready) expect(ms).toBeLessThan(PROPAGATION_MS);

    // The tenant's allow-list narrows for all its keys.
    const narrowed = await admin('PATCH', '/tenants/tenant-c', { models: ['model-a'] });
    expect(narrowed.status).toBe(200);
    expect(narrowed.json()).toMatchObject({ id: 'tenant-c', models: ['model-a'], source: 'api', keyCount: 2 });
    const hidden = await propagation(async (ingress) => (await chat(ingress, first.key, 'tenant-c', 'model-shared')).status === 404);
    for (const ms of hidden) expect(ms).toBeLessThan(PROPAGATION_MS);
    for (const ingress of ingresses) {
      expect(await modelIds(ingress, first.key)).toEqual(['model-a']);
      expect(await modelIds(ingress, second.key)).toEqual(['model-a']);
    }

    // A per-key rate limit set at runtime is enforced by every ingress (they share Redis).
    const limited = await admin('PATCH', '/tenants/tenant-c/keys/c-two', { limits: { rpm: 2 } });
    expect(limited.status).toBe(200);
    expect(limited.json()).toMatchObject({ id: 'c-two', limits: { rpm: 2 } });
    const refusedAfter = await propagation(async (ingress) => (await chat(ingress, second.key, 'tenant-c')).status === 429);
    for (const ms of refusedAfter) expect(ms).toBeLessThan(PROPAGATION_MS);
    for (const ingress of ingresses) {
      const refused = await chat(ingress, second.key, 'tenant-c');
      expect(refused.status).toBe(429);
      expect(refused.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
      // The tenant's other key is not limited.
      expect((await chat(ingress, first.key, 'tenant-c')).status).toBe(200);
    }

    const deleted = await admin('DELETE', '/tenants/tenant-c');
    expect(deleted.status).toBe(200);
    expect(deleted.json()).toMatchObject({ id: 'tenant-c', deleted: true, revokedKeys: 2 });
    const elapsed = await propagation(async (ingress) => {
      const [one, two] = await Promise.all([chat(ingress, first.key, 'tenant-c'), chat(ingress, second.key, 'tenant-c')]);
      return one.status === 401 && two.status === 401;
    });
    for (const ms of elapsed) expect(ms).toBeLessThan(PROPAGATION_MS);
    for (const ingress of ingresses) expectChatUnauthorized(await chat(ingress, second.key, 'tenant-c'));
    expect((await admin('GET', '/tenants/tenant-c')).status).toBe(404);
    expect((await admin('GET', '/tenants/tenant-c/keys')).status).toBe(404);
  });

  it('should refuse malformed admin bodies with a 400 naming the field, and duplicates with a 409', async () => {
    const unknownField = await admin('POST', '/tenants', { id: 'tenant-x', colour: 'blue' });
    expect(unknownField.status).toBe(400);
    expect(unknownField.json()).toMatchObject({ error: { message: expect.any(String), type: expect.any(String), code: expect.any(String) } });
    const badLimit = await admin('PATCH', '/tenants/tenant-a', { limits: { rpm: -5 } });
    expect(badLimit.status).toBe(400);
    expect(JSON.stringify(badLimit.json())).toContain('rpm');
    const badId = await admin('POST', '/tenants', { id: 'has space' });
    expect(badId.status).toBe(400);
    const duplicate = await admin('POST', '/tenants', { id: 'tenant-a' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.json()).toMatchObject({ error: { code: 'tenant_exists' } });
    const duplicateKey = await admin('POST', '/tenants/tenant-a/keys', { id: 'a-main' });
    expect(duplicateKey.status).toBe(409);
    expect(duplicateKey.json()).toMatchObject({ error: { code: 'key_exists' } });
    expect((await admin('POST', '/tenants/nobody/keys', {})).status).toBe(404);
    expect((await admin('GET', '/tenants/tenant-x')).status).toBe(404);
    for (const result of [unknownField, badLimit, duplicate]) expect(result.body).not.toMatch(/sk-sy-/);
  });

  it('should never write a client key, an upstream key or the admin token to any output or store plaintext keys in Redis', async () => {
    expect(issuedKeys.length).toBeGreaterThanOrEqual(6);
    const output = processes.map((process) => process.output()).join('\n');
    for (const secret of [...issuedKeys, UPSTREAM_KEY, ADMIN_TOKEN]) expect(output).not.toContain(secret);
    const client = new Redis(redis.url);
    try {
      const dump = await dumpRedis(client);
      expect(dump.length).toBeGreaterThan(0);
      for (const secret of [...issuedKeys, UPSTREAM_KEY, ADMIN_TOKEN]) expect(dump).not.toContain(secret);
    } finally {
      client.disconnect();
    }
  });
});

async function answer(response: Response): Promise<Answer> {
  const body = await response.text();
  return { status: response.status, body, json: () => JSON.parse(body) as Record<string, unknown> };
}

/** Every key and value in Redis as one string (bounded: the test's Redis holds a few thousand keys). */
async function dumpRedis(client: Redis): Promise<string> {
  const parts: string[] = [];
  let cursor = '0';
  for (let page = 0; page < 1_000; page++) {
    const [next, keys] = await client.scan(cursor, 'COUNT', '500');
    for (const key of keys) {
      parts.push(key);
      const type = await client.type(key);
      if (type === 'string') parts.push((await client.get(key)) ?? '');
      else if (type === 'hash') parts.push(JSON.stringify(await client.hgetall(key)));
      else if (type === 'set') parts.push(...(await client.smembers(key)));
      else if (type === 'zset') parts.push(...(await client.zrange(key, '0', '-1')));
      else if (type === 'list') parts.push(...(await client.lrange(key, 0, -1)));
      else if (type === 'stream') parts.push(JSON.stringify(await client.xrange(key, '-', '+')));
    }
    cursor = next;
    if (cursor === '0') break;
  }
  return parts.join('\n');
}
