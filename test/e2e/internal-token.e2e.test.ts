import { CATALOG_SNAPSHOT_PATH } from '@switchyard/catalog-client';
import { encodeRoute, KEY_ID_HEADER, REQUEST_ID_HEADER, ROUTE_HEADER, ROUTER_PATH, TENANT_HEADER } from '@switchyard/router-client';
import { request as httpRequest } from 'node:http';
import { getFreePort } from '@switchyard/testkit';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startSwitchyard, type SwitchyardProcess } from './support/start-process.ts';
import { INTERNAL_TOKEN, startTopology, TEST_KEY, UPSTREAM_KEY, type Topology } from './support/topology.ts';

const UNAUTHENTICATED_WARNING = 'SWITCHYARD_INTERNAL_TOKEN is not set';

/** A route call as an ingress makes it, claiming to be tenant `e2e`: what a router must not take from just anyone. */
function forgedRouteCall(routerUrl: string, authorization?: string): Promise<Response> {
  return fetch(`${routerUrl}${ROUTER_PATH}`, {
    method: 'POST',
    headers: {
      [ROUTE_HEADER]: encodeRoute({ format: 'chat-completions', operation: 'generate', model: 'model-chat' }),
      [TENANT_HEADER]: 'e2e',
      [KEY_ID_HEADER]: 'e2e-key',
      [REQUEST_ID_HEADER]: 'req_forged',
      'content-type': 'application/octet-stream',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: JSON.stringify({ model: 'model-chat', messages: [{ role: 'user', content: 'forged' }] }),
  });
}

/** Asks a router for a hop connection as an ingress would; the status it answers (101 when it takes it). */
function hopUpgrade(routerUrl: string, authorization?: string): Promise<{ status: number; refused: boolean }> {
  const { hostname, port } = new URL(routerUrl);
  return new Promise((resolve, reject) => {
    const upgrade = httpRequest({
      host: hostname,
      port,
      path: '/internal/v1/hop',
      agent: false,
      headers: { connection: 'upgrade', upgrade: 'switchyard-hop/1', ...(authorization === undefined ? {} : { authorization }) },
    });
    upgrade.on('upgrade', (response, socket) => {
      socket.destroy();
      resolve({ status: response.statusCode ?? 0, refused: false });
    });
    upgrade.on('response', (response) => {
      response.resume();
      resolve({ status: response.statusCode ?? 0, refused: response.headers['x-switchyard-internal-auth'] === 'refused' });
    });
    upgrade.on('error', reject);
    upgrade.end();
  });
}

/** A chat completion through an ingress (the OpenAI SDK); its answer text. */
async function chatThrough(ingress: { url: string }, content: string): Promise<string | null | undefined> {
  const client = new OpenAI({ baseURL: `${ingress.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  const completion = await client.chat.completions.create({ model: 'model-chat', messages: [{ role: 'user', content }] });
  return completion.choices[0]?.message.content;
}

/**
 * Split mode's internal hops need SWITCHYARD_INTERNAL_TOKEN (security review of issue 7): the
 * catalog snapshot carries provider keys, and a router trusts the identity headers it is sent.
 */
describe('internal token (split topology)', () => {
  let topology: Topology;
  let catalogUrl: string;
  let routerUrl: string;

  beforeAll(async () => {
    // startTopology gives split processes the token by default.
    topology = await startTopology('split');
    [catalogUrl, routerUrl] = topology.processes.map((process) => process.url) as [string, string];
  });

  afterAll(async () => {
    await topology?.stop();
  });

  it('should serve a client through ingress, router and catalog, all holding the token, the ingress and router over hop connections', async () => {
    expect(await chatThrough(topology, 'through the internal hops')).toContain('through the internal hops');
    for (const url of [topology.url, routerUrl]) {
      const connections = /^switchyard_hop_connections (\d+)$/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1];
      expect(Number(connections), url).toBeGreaterThanOrEqual(1);
    }
  });

  it('should refuse a hop connection without the token', async () => {
    for (const authorization of [undefined, 'Bearer not-the-token', `Bearer ${TEST_KEY}`]) expect(await hopUpgrade(routerUrl, authorization)).toEqual({ status: 401, refused: true });
    expect((await hopUpgrade(routerUrl, `Bearer ${INTERNAL_TOKEN}`)).status).toBe(101);
  });

  it('should refuse the catalog snapshot without the token, keeping the provider keys in', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-the-token' }, { authorization: `Bearer ${TEST_KEY}` }]) {
      const refused = await fetch(`${catalogUrl}${CATALOG_SNAPSHOT_PATH}`, { headers });
      expect(refused.status).toBe(401);
      const body = await refused.text();
      expect(body).not.toContain(UPSTREAM_KEY);
      expect(JSON.parse(body).error.code).toBe('invalid_internal_token');
    }
    const served = await fetch(`${catalogUrl}${CATALOG_SNAPSHOT_PATH}`, { headers: { authorization: `Bearer ${INTERNAL_TOKEN}` } });
    expect(served.status).toBe(200);
  });

  it('should refuse a route call without the token, whatever identity it claims', async () => {
    for (const authorization of [undefined, 'Bearer not-the-token', `Bearer ${TEST_KEY}`]) {
      const refused = await forgedRouteCall(routerUrl, authorization);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('invalid_internal_token');
    }
  });

  it('should leave /healthz, /readyz and /metrics open on the internal targets', async () => {
    for (const url of [catalogUrl, routerUrl]) {
      for (const path of ['/healthz', '/readyz', '/metrics']) expect((await fetch(`${url}${path}`)).status, `${url}${path}`).toBe(200);
      expect(await (await fetch(`${url}/metrics`)).text()).not.toContain(INTERNAL_TOKEN);
    }
  });

  it('should log refusals without what was sent, and never write the token', async () => {
    await topology.stop();
    const [catalog, router, ingress] = topology.processes;
    expect(catalog?.output()).toContain('internal call refused');
    expect(router?.output()).toContain('internal call refused');
    expect(topology.output()).not.toContain(INTERNAL_TOKEN);
    expect(topology.output()).not.toContain('not-the-token');
    expect(topology.output()).not.toContain(UNAUTHENTICATED_WARNING);
    expect(ingress?.output()).not.toContain('refused');
  });
});

describe('no internal token (split topology, as before the token)', () => {
  it('should keep working, with one warning at start from each process', async () => {
    const topology = await startTopology('split', { env: { SWITCHYARD_INTERNAL_TOKEN: '' } });
    onTestFinished(() => topology.stop());
    expect(await chatThrough(topology, 'no token')).toContain('no token');
    await topology.stop();
    for (const process of topology.processes) expect(process.output().split(UNAUTHENTICATED_WARNING)).toHaveLength(2);
  });
});

/**
 * A rotation under way (docs/operations.md): processes rolled to `new,old` send the new token,
 * those not yet rolled (`old,new`) send the old one, and every one accepts both, so no hop fails.
 */
describe('internal token rotation (split topology, mid-rollout)', () => {
  it('should serve through an ingress and a router that send different tokens, each accepting both', async () => {
    const oldToken = INTERNAL_TOKEN;
    const newToken = 'e2e-new-internal-token-0123456789abcdef';
    // Step 1 everywhere: catalog, router and ingress send the old token.
    const topology = await startTopology('split', { env: { SWITCHYARD_INTERNAL_TOKEN: `${oldToken},${newToken}` } });
    const started: SwitchyardProcess[] = [];
    const stopAll = async () => {
      await Promise.all(started.map((process) => process.stop()));
      await topology.stop();
    };
    onTestFinished(stopAll);
    const [catalog, stepOneRouter] = topology.processes as [SwitchyardProcess, SwitchyardProcess];
    // Ready only once its first catalog poll was served: the start is the router/ingress → catalog hop.
    const start = async (target: 'router' | 'ingress', tokens: string, routerUrl?: string) => {
      const env = { SWITCHYARD_INTERNAL_TOKEN: tokens, SWITCHYARD_CATALOG_URL: catalog.url, ...(routerUrl === undefined ? {} : { SWITCHYARD_ROUTER_URL: routerUrl }) };
      const process = await startSwitchyard(target, { port: await getFreePort(), env });
      started.push(process);
      return process;
    };
    const stepTwoRouter = await start('router', `${newToken},${oldToken}`);
    const stepOneIngress = await start('ingress', `${oldToken},${newToken}`, stepTwoRouter.url);
    const stepTwoIngress = await start('ingress', `${newToken},${oldToken}`, stepOneRouter.url);

    expect(await chatThrough(stepOneIngress, 'old token to a rolled router')).toContain('old token to a rolled router');
    expect(await chatThrough(stepTwoIngress, 'new token to a router not rolled yet')).toContain('new token to a router not rolled yet');

    await stopAll();
    const output = [topology.output(), ...started.map((process) => process.output())].join('\n');
    // Every refusal, on either side of a hop, is logged naming the variable; a catalog poll that
    // fails because the catalog stopped first during this teardown is not one.
    for (const unwanted of ['refused', 'SWITCHYARD_INTERNAL_TOKEN', oldToken, newToken]) expect(output).not.toContain(unwanted);
  });
});
