import { getFreePort, startRedis, type RedisServer } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSwitchyard, type SwitchyardProcess } from './support/start-process.ts';
import { writeConfig } from './support/scratch.ts';

const ADMIN_TOKEN = 'admin-token-catalog-restart-0123456789';
const LOAD_KEY = 'sk-sy-catalog-restart-load-0123456789abcdef';
/** How long the catalog stays dead under load. */
const OUTAGE_MS = 3_000;
/** Revocation must reach every ingress within this, once the catalog is back (issue 7: "within seconds"). */
const PROPAGATION_MS = 3_000;
/** How long a probe keeps trying, so a slow propagation is measured rather than cut off. */
const PROBE_LIMIT_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The catalog is the only source of tenants and keys, but routers and ingresses serve from the
 * snapshot they hold (issue 7): a catalog that dies (SIGKILL: an OOM-kill, a lost node) must
 * not fail a single request, and once it is back on the same address, admin changes made
 * through it must reach the ingresses as before, without restarting them. Split topology
 * on loopback: Redis, the simulator, a catalog, two routers, two ingresses (one per router).
 */
describe('catalog SIGKILL and restart under light load (split topology)', () => {
  let redis: RedisServer;
  const processes: SwitchyardProcess[] = [];
  let catalog: SwitchyardProcess;
  let catalogPort = 0;
  let config = '';
  const env: Record<string, string> = {};
  let routers: SwitchyardProcess[] = [];
  let ingresses: SwitchyardProcess[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    const simulator = await startSwitchyard('simulator', { port: await getFreePort(), readyPath: '/_sim/stats' });
    processes.push(simulator);
    config = writeConfig(
      `
providers:
  up-chat: { protocol: chat-completions, baseUrl: ${simulator.url}/v1 }
models:
  - { name: model-a, deployments: [{ provider: up-chat, model: sim-a }], maxOutputTokens: 64 }
tenants:
  - id: load
    keys: [{ id: load-key, key: \${LOAD_KEY} }]
`,
    );
    Object.assign(env, { REDIS_URL: redis.url, LOAD_KEY, LOG_LEVEL: 'warn' });
    catalogPort = await getFreePort();
    catalog = await startSwitchyard('catalog', { port: catalogPort, config, env: { ...env, SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN } });
    routers = await Promise.all([0, 1].map(async () => startSwitchyard('router', { port: await getFreePort(), env: { ...env, SWITCHYARD_CATALOG_URL: catalog.url } })));
    ingresses = await Promise.all(
      routers.map(async (router) =>
        startSwitchyard('ingress', { port: await getFreePort(), env: { ...env, SWITCHYARD_CATALOG_URL: catalog.url, SWITCHYARD_ROUTER_URL: router.url } }),
      ),
    );
    processes.push(...routers, ...ingresses);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([...processes, catalog].map((process) => process?.stop()));
    await redis?.stop();
  });

  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${catalogPort}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };

  const chat = async (ingress: SwitchyardProcess, key: string): Promise<number> => {
    const response = await fetch(`${ingress.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'model-a', messages: [{ role: 'user', content: 'hi [[sim:words=3]]' }] }),
    });
    await response.arrayBuffer();
    return response.status;
  };

  /** Milliseconds until `key` gets `status` from every ingress, or undefined if not within PROBE_LIMIT_MS. */
  const untilEveryIngress = async (key: string, status: number): Promise<number | undefined> => {
    const started = Date.now();
    while (Date.now() - started < PROBE_LIMIT_MS) {
      const statuses = await Promise.all(ingresses.map((ingress) => chat(ingress, key)));
      if (statuses.every((entry) => entry === status)) return Date.now() - started;
      await sleep(50);
    }
    return undefined;
  };

  it('should keep answering 200 while the catalog is dead, and take admin changes from it once it is back', async () => {
    // A runtime tenant and key: they live in Redis, not in the config file, so only a catalog
    // that reloads its runtime state after the restart still knows them.
    expect((await admin('POST', '/tenants', { id: 'runtime', models: ['model-a'] })).status).toBe(201);
    const issued = await admin('POST', '/tenants/runtime/keys', { id: 'runtime-key' });
    expect(issued.status).toBe(201);
    const runtimeKey = String(issued.json.key);
    expect(await untilEveryIngress(runtimeKey, 200)).toBeDefined();

    // Light load: one request at a time through each ingress, for the whole test.
    const statuses: Array<{ status: number; phase: string }> = [];
    let phase = 'before';
    let loading = true;
    const load = Promise.all(
      ingresses.map(async (ingress) => {
        while (loading) {
          statuses.push({ status: await chat(ingress, LOAD_KEY).catch(() => 0), phase });
          await sleep(20);
        }
      }),
    );
    try {
      await sleep(500);
      const exited = new Promise((resolve) => catalog.child.once('exit', resolve));
      catalog.kill();
      await exited;
      phase = 'outage';
      await sleep(OUTAGE_MS / 2);
      // Still ready (Kubernetes must not pull them from their Services), and runtime keys still known.
      for (const process of [...routers, ...ingresses]) expect((await fetch(`${process.url}/readyz`)).status, `${process.url}/readyz`).toBe(200);
      expect(await Promise.all(ingresses.map((ingress) => chat(ingress, runtimeKey)))).toEqual([200, 200]);
      await sleep(OUTAGE_MS / 2);

      phase = 'restart';
      catalog = await startSwitchyard('catalog', { port: catalogPort, config, env: { ...env, SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN } });
      phase = 'after';
      // The restarted catalog serves the runtime tenant from Redis: the key still works.
      expect((await admin('GET', '/tenants/runtime/keys')).status).toBe(200);
      expect(await Promise.all(ingresses.map((ingress) => chat(ingress, runtimeKey)))).toEqual([200, 200]);

      const revoked = await admin('DELETE', '/tenants/runtime/keys/runtime-key');
      expect(revoked.status).toBe(200);
      const propagation = await untilEveryIngress(runtimeKey, 401);
      console.info(`catalog restart: revocation reached both ingresses in ${propagation} ms`);
      expect(propagation, 'revocation never reached every ingress').toBeDefined();
      expect(propagation).toBeLessThanOrEqual(PROPAGATION_MS);
      await sleep(500);
    } finally {
      loading = false;
      await load;
    }

    const count = (which: string) => statuses.filter((entry) => entry.phase === which).length;
    expect(count('outage'), 'requests during the outage').toBeGreaterThan(20);
    expect(count('after'), 'requests after the restart').toBeGreaterThan(10);
    const failed = statuses.filter((entry) => entry.status !== 200);
    expect(failed, `${failed.length} of ${statuses.length} load requests failed`).toEqual([]);
    for (const process of [...routers, ...ingresses]) expect(process.child.exitCode, process.url).toBeNull();
  }, 60_000);
});
