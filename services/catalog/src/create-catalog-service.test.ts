import { createHttpCatalog, type CatalogSource } from '@switchyard/catalog-client';
import { Metrics } from '@switchyard/telemetry';
import { redisTest, startRedis } from '@switchyard/testkit';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { buildCatalogApp } from './app.ts';
import { createCatalogService, type CatalogService, type CatalogServiceOptions } from './create-catalog-service.ts';
import { CATALOG_KEYS } from './store/keys.ts';
import { ACME_CI_KEY, CATALOG_YAML, catalogConfig } from './testing/catalog-config.ts';
import { storeModes } from './testing/store-test.ts';

const TOKEN = 'admin-token-0123456789';

interface Running {
  service: CatalogService;
  app: FastifyInstance;
  url: string;
}

async function startService(options: Partial<CatalogServiceOptions>): Promise<Running> {
  const service = await createCatalogService({ config: catalogConfig(), adminToken: TOKEN, ...options });
  const app = buildCatalogApp({ service, metrics: new Metrics() });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  onTestFinished(async () => {
    await app.close();
    await service.close();
  });
  return { service, app, url };
}

function follow(url: string, options: { pollMs?: number; longPollMs?: number } = {}): CatalogSource {
  const source = createHttpCatalog({ url, pollMs: options.pollMs ?? 60_000, ...(options.longPollMs !== undefined && { longPollMs: options.longPollMs }) });
  onTestFinished(() => source.close());
  return source;
}

async function admin(url: string, method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) {
  const response = await request(`${url}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> };
}

async function snapshotRequest(url: string, query: string) {
  const started = Date.now();
  const response = await request(`${url}/internal/v1/catalog?${query}`);
  const text = await response.body.text();
  return { status: response.statusCode, elapsed: Date.now() - started, body: text === '' ? undefined : (JSON.parse(text) as { version: number }) };
}

/**
 * Resolves once the server holds the next request to arrive. The snapshot route takes a long-poll
 * into its held set in the turn it arrives (no I/O before it waits), so it is held one turn after
 * the raw `request` event; a fixed sleep instead let a slow request arrive after the change or
 * the close it was meant to wait through (answered at once, or 503 by the closing server).
 */
async function nextRequestHeld(app: FastifyInstance): Promise<void> {
  await once(app.server, 'request');
  await new Promise((resolve) => setImmediate(resolve));
}

async function tempConfigFile(text: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'sy-catalog-'));
  onTestFinished(() => rm(directory, { recursive: true, force: true }));
  const file = join(directory, 'catalog.yaml');
  await writeFile(file, text);
  return file;
}

const WITH_GLOBEX = `${CATALOG_YAML}
  - id: globex
    models: [fast-chat]
`;

for (const { mode, storeTest } of storeModes) {
  describe(`snapshot long-polling ${mode}`, () => {
    storeTest('should hold a request until the version changes and answer at once with the new snapshot', async ({ redisUrl }) => {
      const { service, app, url } = await startService({ ...(redisUrl && { redisUrl }) });
      const version = service.source.current().version;
      const holding = nextRequestHeld(app);
      const held = snapshotRequest(url, `version=${version}&waitMs=10000`);
      await holding;
      const changedAt = Date.now();
      await admin(url, 'POST', '/tenants', { id: 'globex' });
      const answer = await held;
      expect(answer.status).toBe(200);
      expect(answer.body?.version).toBeGreaterThan(version);
      expect(Date.now() - changedAt).toBeLessThan(1_000);
    });

    storeTest('should answer 304 once waitMs has passed without a change', async ({ redisUrl }) => {
      const { service, url } = await startService({ ...(redisUrl && { redisUrl }) });
      const answer = await snapshotRequest(url, `version=${service.source.current().version}&waitMs=400`);
      expect(answer.status).toBe(304);
      expect(answer.elapsed).toBeGreaterThanOrEqual(380);
      expect(answer.elapsed).toBeLessThan(2_000);
    });

    storeTest('should answer at once without waitMs, or when the client is behind', async ({ redisUrl }) => {
      const { service, url } = await startService({ ...(redisUrl && { redisUrl }) });
      const version = service.source.current().version;
      expect((await snapshotRequest(url, `version=${version}`)).status).toBe(304);
      const behind = await snapshotRequest(url, `version=${version - 1}&waitMs=10000`);
      expect(behind.status).toBe(200);
      expect(behind.elapsed).toBeLessThan(1_000);
      expect(behind.body?.version).toBe(version);
    });

    storeTest('should let createHttpCatalog see a change within milliseconds, without polling', async ({ redisUrl }) => {
      const { url } = await startService({ ...(redisUrl && { redisUrl }) });
      // pollMs of a minute: only a long-poll can bring the change in time.
      const client = follow(url, { pollMs: 60_000 });
      await client.ready();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const created = await admin(url, 'POST', '/tenants/acme/keys', { id: 'fresh' });
      const changedAt = Date.now();
      await vi.waitFor(() => expect(client.current().authenticate(created.body.key as string)?.key.id).toBe('fresh'), { timeout: 2_000, interval: 5 });
      expect(Date.now() - changedAt).toBeLessThan(1_000);
      await admin(url, 'DELETE', '/tenants/acme/keys/fresh');
      await vi.waitFor(() => expect(client.current().authenticate(created.body.key as string)).toBeUndefined(), { timeout: 2_000, interval: 5 });
    });

    storeTest('should not let held requests delay shutdown', async ({ redisUrl }) => {
      const { service, app, url } = await startService({ ...(redisUrl && { redisUrl }) });
      const holding = nextRequestHeld(app);
      const held = snapshotRequest(url, `version=${service.source.current().version}&waitMs=30000`);
      await holding;
      const closing = Date.now();
      await app.close();
      expect(Date.now() - closing).toBeLessThan(1_000);
      expect((await held).status).toBe(304);
    });
  });

  describe(`config file ${mode}`, () => {
    storeTest('should pick up an edit of the file, keep runtime tenants, refuse a bad edit and keep the last good one', async ({ redisUrl }) => {
      const file = await tempConfigFile(CATALOG_YAML);
      const { service, url } = await startService({ configPath: file, config: undefined, watchDebounceMs: 50, ...(redisUrl && { redisUrl }) });
      await admin(url, 'POST', '/tenants', { id: 'initech' });
      const key = await admin(url, 'POST', '/tenants/initech/keys', {});

      await writeFile(file, WITH_GLOBEX);
      await vi.waitFor(() => expect(service.source.current().tenant('globex')?.models).toEqual(['fast-chat']), { timeout: 2_000, interval: 20 });
      const index = service.source.current();
      expect(index.tenant('initech')).toBeDefined();
      expect(index.authenticate(key.body.key as string)?.tenant.id).toBe('initech');
      expect(index.authenticate(ACME_CI_KEY)?.tenant.id).toBe('acme');

      const goodVersion = index.version;
      await writeFile(file, WITH_GLOBEX.replace('rpm: 600', 'rpm: -5'));
      const refused = await service.reload();
      expect(refused.status).toBe('refused');
      expect(refused.problems).toEqual([expect.stringMatching(/^tenants\.0\.limits\.rpm: /)]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(service.source.current().version).toBe(goodVersion);
      expect(service.source.current().tenant('acme')?.limits).toEqual({ rpm: 600 });
      expect(service.isReady()).toBe(true);

      await writeFile(file, CATALOG_YAML);
      await vi.waitFor(() => expect(service.source.current().tenant('globex')).toBeUndefined(), { timeout: 2_000, interval: 20 });
      expect(service.source.current().tenant('initech')).toBeDefined();
    });

    storeTest('should re-read the file on reload() (SIGHUP) and do nothing when it did not change', async ({ redisUrl }) => {
      const file = await tempConfigFile(CATALOG_YAML);
      const { service } = await startService({ configPath: file, config: undefined, watchConfig: false, ...(redisUrl && { redisUrl }) });
      const before = service.source.current().version;
      expect((await service.reload()).status).toBe('unchanged');
      await writeFile(file, WITH_GLOBEX);
      const applied = await service.reload();
      expect(applied.status).toBe('applied');
      expect(applied.version).toBeGreaterThan(before);
      expect(service.source.current().tenant('globex')).toBeDefined();
    });

    storeTest('should keep runtime keys of a tenant the file drops, and serve them again when it returns', async ({ redisUrl }) => {
      const file = await tempConfigFile(WITH_GLOBEX);
      const { service, url } = await startService({ configPath: file, config: undefined, watchConfig: false, ...(redisUrl && { redisUrl }) });
      const key = await admin(url, 'POST', '/tenants/globex/keys', { id: 'runtime' });
      await writeFile(file, CATALOG_YAML);
      await service.reload();
      expect(service.source.current().authenticate(key.body.key as string)).toBeUndefined();
      await writeFile(file, WITH_GLOBEX);
      await service.reload();
      expect(service.source.current().authenticate(key.body.key as string)?.key.id).toBe('runtime');
    });

    storeTest('should keep a generated demo key across reloads', async ({ redisUrl }) => {
      const file = await tempConfigFile(`${CATALOG_YAML}
  - id: demo
    keys:
      - { id: demo, generate: true }
`);
      const { service } = await startService({ configPath: file, config: undefined, watchConfig: false, ...(redisUrl && { redisUrl }) });
      const [generated] = service.generatedKeys;
      expect(generated?.keyId).toBe('demo');
      await writeFile(file, `${WITH_GLOBEX}
  - id: demo
    keys:
      - { id: demo, generate: true }
`);
      const reloaded = await service.reload();
      expect(reloaded.status).toBe('applied');
      expect(reloaded.generatedKeys).toEqual([]);
      expect(service.source.current().authenticate(generated?.key ?? '')?.tenant.id).toBe('demo');
    });
  });
}

describe('catalog replicas on one Redis', () => {
  redisTest('should show a change made on one replica on the other, version and snapshot, within 2 s', async ({ redisUrl }) => {
    const one = await startService({ redisUrl });
    const two = await startService({ redisUrl });
    expect(two.service.source.current().version).toBe(one.service.source.current().version);
    const client = follow(two.url);
    await client.ready();

    const changedAt = Date.now();
    const created = await admin(one.url, 'POST', '/tenants', { id: 'globex', limits: { rpm: 9 } });
    expect(created.status).toBe(201);
    const key = await admin(one.url, 'POST', '/tenants/globex/keys', { id: 'ci', models: ['fast-chat'] });
    const version = one.service.source.current().version;
    await vi.waitFor(() => expect(client.current().version).toBe(version), { timeout: 2_000, interval: 5 });
    expect(Date.now() - changedAt).toBeLessThan(2_000);
    expect(two.service.source.current().version).toBe(version);
    expect(two.service.source.current().snapshot).toEqual(one.service.source.current().snapshot);
    expect(client.current().authenticate(key.body.key as string)?.key.models).toEqual(['fast-chat']);

    // And back: a change on the second replica, seen through the first.
    const revokedAt = Date.now();
    await admin(two.url, 'DELETE', '/tenants/globex');
    await vi.waitFor(() => expect(one.service.source.current().authenticate(key.body.key as string)).toBeUndefined(), { timeout: 2_000, interval: 5 });
    expect(Date.now() - revokedAt).toBeLessThan(2_000);
    expect(one.service.source.current().version).toBe(two.service.source.current().version);
  });

  redisTest('should agree on the version at start without bumping it for the same config', async ({ redisUrl }) => {
    const one = await startService({ redisUrl });
    const version = one.service.source.current().version;
    const two = await startService({ redisUrl });
    expect(two.service.source.current().version).toBe(version);
    expect(one.service.source.current().version).toBe(version);
  });

  redisTest('should catch up with a change whose notification was lost', async ({ redisUrl }) => {
    const { service } = await startService({ redisUrl, resyncMs: 200 });
    const redis = new Redis(redisUrl);
    onTestFinished(() => redis.disconnect());
    const now = new Date().toISOString();
    // Written behind the catalog's back, without PUBLISH.
    await redis.hset(CATALOG_KEYS.tenants, 'globex', JSON.stringify({ id: 'globex', models: ['*'], limits: {}, createdAt: now, updatedAt: now }));
    await redis.incr(CATALOG_KEYS.version);
    await vi.waitFor(() => expect(service.source.current().tenant('globex')).toBeDefined(), { timeout: 2_000, interval: 20 });
  });

  redisTest('should stop serving from a replica whose config file differs from the announced one, until it matches', async ({ redisUrl }) => {
    const fileOne = await tempConfigFile(CATALOG_YAML);
    const fileTwo = await tempConfigFile(CATALOG_YAML);
    const one = await startService({ redisUrl, configPath: fileOne, config: undefined, watchConfig: false });
    const two = await startService({ redisUrl, configPath: fileTwo, config: undefined, watchConfig: false });
    await writeFile(fileOne, WITH_GLOBEX);
    const applied = await one.service.reload();
    await vi.waitFor(() => expect(two.service.isReady()).toBe(false), { timeout: 2_000, interval: 10 });
    const refused = await snapshotRequest(two.url, 'version=-1');
    expect(refused.status).toBe(503);
    expect((await request(`${two.url}/readyz`)).statusCode).toBe(503);
    expect(one.service.isReady()).toBe(true);

    // The other replica's file catches up (a ConfigMap reaches pods at different times).
    await writeFile(fileTwo, WITH_GLOBEX);
    await two.service.reload();
    expect(two.service.isReady()).toBe(true);
    const served = await snapshotRequest(two.url, `version=${applied.version - 1}`);
    expect(served.status).toBe(200);
    // Both replicas converge; one learns of a version two's reload announced through Redis.
    await vi.waitFor(() => expect(two.service.source.current().snapshot).toEqual(one.service.source.current().snapshot), { timeout: 2_000, interval: 10 });
  });
});

describe('catalog service', () => {
  it('should read the config file when no config is given', async () => {
    const file = await tempConfigFile(WITH_GLOBEX);
    const { service } = await startService({ configPath: file, config: undefined, watchConfig: false });
    expect(service.source.current().tenant('globex')).toBeDefined();
  });

  it('should refuse to start on a bad config file', async () => {
    const file = await tempConfigFile('tenants: [{ id: "bad id" }]');
    await expect(createCatalogService({ configPath: file, watchConfig: false })).rejects.toThrow(/tenants\.0\.id/);
  });
});

describe('catalog store outages', () => {
  it('should keep serving the last snapshot while Redis is down, refuse changes with 503, and recover', async () => {
    const redis = await startRedis();
    onTestFinished(() => redis.stop());
    const { service, url } = await startService({ redisUrl: redis.url, resyncMs: 100 });
    await admin(url, 'POST', '/tenants', { id: 'globex' });
    const version = service.source.current().version;

    await redis.kill();
    const refused = await admin(url, 'POST', '/tenants', { id: 'initech' });
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ code: 'store_unavailable' });
    const served = await snapshotRequest(url, 'version=-1');
    expect(served.status).toBe(200);
    expect(served.body?.version).toBe(version);
    expect(service.source.current().authenticate(ACME_CI_KEY)?.tenant.id).toBe('acme');

    // Back, but empty (no persistence): the catalog announces again with a higher version.
    await redis.restart();
    await vi.waitFor(() => expect(service.source.current().version).toBeGreaterThan(version), { timeout: 5_000, interval: 50 });
    expect(service.source.current().tenant('globex')).toBeUndefined();
    expect(service.source.current().tenant('acme')).toBeDefined();
    await vi.waitFor(async () => expect((await admin(url, 'POST', '/tenants', { id: 'initech' })).status).toBe(201), { timeout: 5_000, interval: 100 });
  });
});
