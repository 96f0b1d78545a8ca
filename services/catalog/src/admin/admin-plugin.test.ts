import { Metrics } from '@switchyard/telemetry';
import { RawHttpConnection } from '@switchyard/testkit';
import Fastify, { type FastifyInstance } from 'fastify';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildCatalogApp } from '../app.ts';
import { createCatalogService, type CatalogService } from '../create-catalog-service.ts';
import { ACME_CI_KEY, catalogConfig } from '../testing/catalog-config.ts';
import { storeModes } from '../testing/store-test.ts';

const TOKEN = 'admin-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

async function startCatalog(redisUrl: string | undefined, adminToken: string | null = TOKEN): Promise<{ app: FastifyInstance; service: CatalogService }> {
  const service = await createCatalogService({ config: catalogConfig(), ...(redisUrl && { redisUrl }), ...(adminToken && { adminToken }) });
  const app = buildCatalogApp({ service, metrics: new Metrics() });
  onTestFinished(async () => {
    await app.close();
    await service.close();
  });
  return { app, service };
}

/** An admin call; `body` is sent as JSON. */
async function call(app: FastifyInstance, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) {
  const response = await app.inject({ method, url: `/admin/v1${url}`, headers: auth, ...(body === undefined ? {} : { payload: body as object }) });
  return { status: response.statusCode, body: response.body === '' ? undefined : response.json(), headers: response.headers };
}

describe('admin API authentication', () => {
  it('should answer 401 without a token or with a wrong one, in the admin error format', async () => {
    const { app } = await startCatalog(undefined);
    for (const headers of [{}, { authorization: 'Bearer wrong-token' }, { authorization: TOKEN }, { authorization: `Basic ${TOKEN}` }]) {
      const response = await app.inject({ method: 'GET', url: '/admin/v1/tenants', headers });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.json()).toEqual({ error: { message: expect.any(String), type: 'authentication_error', code: 'invalid_admin_token' } });
    }
  });

  it('should refuse before reading or validating the body', async () => {
    const { app } = await startCatalog(undefined);
    const response = await app.inject({ method: 'POST', url: '/admin/v1/tenants', payload: { nonsense: true } });
    expect(response.statusCode).toBe(401);
  });

  it('should answer 404 admin_disabled when no token is configured, even with a bearer', async () => {
    const { app } = await startCatalog(undefined, null);
    const response = await app.inject({ method: 'GET', url: '/admin/v1/tenants', headers: { authorization: 'Bearer anything' } });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('admin_disabled');
  });

  it('should answer an upload it refuses unread (over 1 MiB, no token) and keep serving on the connection', async () => {
    const { app } = await startCatalog(undefined);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const connection = await RawHttpConnection.open((app.server.address() as { port: number }).port);
    onTestFinished(() => connection.destroy());
    const list = `GET /admin/v1/tenants HTTP/1.1\r\nhost: x\r\nauthorization: ${auth.authorization}\r\n\r\n`;
    for (const { length, headers, status, code } of [
      { length: 2 * 1024 * 1024, headers: `authorization: ${auth.authorization}\r\n`, status: 413, code: 'request_too_large' },
      { length: 64 * 1024, headers: '', status: 401, code: 'invalid_admin_token' },
    ]) {
      connection.startUpload('/admin/v1/tenants', length, 512, headers);
      const refused = await connection.answer();
      expect(refused.status).toBe(status);
      expect(JSON.parse(refused.body).error.code).toBe(code);
      // Closing with the upload unread would reset the connection under a client still writing it.
      expect(refused.head).not.toMatch(/connection: close/i);
      connection.write('x'.repeat(length - 512));
      connection.write(list);
      expect((await connection.answer()).status).toBe(200);
    }
  });

  it('should answer unknown admin routes with a JSON 404', async () => {
    const { app } = await startCatalog(undefined);
    const response = await call(app, 'GET', '/nope');
    expect(response.status).toBe(404);
    expect(response.body.error).toMatchObject({ type: 'not_found_error', code: 'not_found' });
  });
});

for (const { mode, storeTest } of storeModes) {
  describe(`admin API ${mode}`, () => {
    storeTest('should create, read, list, patch and delete tenants', async ({ redisUrl }) => {
      const { app, service } = await startCatalog(redisUrl);
      const created = await call(app, 'POST', '/tenants', { id: 'globex', models: ['fast-chat'], limits: { rpm: 60, tpm: 1000 } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ id: 'globex', models: ['fast-chat'], limits: { rpm: 60, tpm: 1000 }, source: 'api', keyCount: 0 });
      expect(service.source.current().tenant('globex')?.limits).toEqual({ rpm: 60, tpm: 1000 });

      expect((await call(app, 'POST', '/tenants', { id: 'globex' })).body.error.code).toBe('tenant_exists');
      expect((await call(app, 'GET', '/tenants/globex')).body.models).toEqual(['fast-chat']);
      const list = await call(app, 'GET', '/tenants');
      expect(list.body.data.map((tenant: { id: string; source: string }) => [tenant.id, tenant.source])).toEqual([
        ['acme', 'config'],
        ['globex', 'api'],
      ]);

      // A JSON merge patch: a number sets a limit, null removes one, absent keeps it.
      const patched = await call(app, 'PATCH', '/tenants/globex', { models: ['*'], limits: { rpm: 120, tpm: null, concurrency: 4 } });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ models: ['*'], limits: { rpm: 120, concurrency: 4 } });
      expect(service.source.current().tenant('globex')).toEqual({ id: 'globex', models: ['*'], limits: { rpm: 120, concurrency: 4 } });

      const deleted = await call(app, 'DELETE', '/tenants/globex');
      expect(deleted.body).toEqual({ id: 'globex', deleted: true, revokedKeys: 0 });
      expect((await call(app, 'GET', '/tenants/globex')).status).toBe(404);
      expect(service.source.current().tenant('globex')).toBeUndefined();
    });

    storeTest('should validate bodies and name the bad field', async ({ redisUrl }) => {
      const { app } = await startCatalog(redisUrl);
      const badLimit = await call(app, 'POST', '/tenants', { id: 'globex', limits: { rpm: -1 } });
      expect(badLimit.status).toBe(400);
      expect(badLimit.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param: 'limits.rpm' });
      expect(badLimit.body.error.message).toMatch(/^limits\.rpm: /);
      const badId = await call(app, 'POST', '/tenants', { id: 'has space' });
      expect(badId.body.error.param).toBe('id');
      const unknownField = await call(app, 'POST', '/tenants', { id: 'globex', rmp: 5 });
      expect(unknownField.status).toBe(400);
      expect(unknownField.body.error.param).toBe('rmp');
      const missingBody = await call(app, 'POST', '/tenants');
      expect(missingBody.status).toBe(400);
      const badJson = await app.inject({ method: 'POST', url: '/admin/v1/tenants', headers: { ...auth, 'content-type': 'application/json' }, payload: '{"id":' });
      expect(badJson.statusCode).toBe(400);
      expect(badJson.json().error.type).toBe('invalid_request_error');
      expect((await call(app, 'PATCH', '/tenants/acme/keys/ci', { models: 'fast-chat' })).body.error.param).toBe('models');
    });

    storeTest('should issue a key whose plaintext authenticates, shown once and never listed', async ({ redisUrl }) => {
      const { app, service } = await startCatalog(redisUrl);
      await call(app, 'POST', '/tenants', { id: 'globex' });
      const created = await call(app, 'POST', '/tenants/globex/keys', { id: 'ci', limits: { rpm: 10 } });
      expect(created.status).toBe(201);
      expect(created.headers['cache-control']).toBe('no-store');
      expect(created.body).toMatchObject({ id: 'ci', tenantId: 'globex', limits: { rpm: 10 }, source: 'api' });
      const plaintext: string = created.body.key;
      expect(plaintext).toMatch(/^sk-sy-[A-Za-z0-9_-]{32}$/);
      expect(created.body).not.toHaveProperty('sha256');

      const principal = service.source.current().authenticate(plaintext);
      expect(principal?.tenant.id).toBe('globex');
      expect(principal?.key).toMatchObject({ id: 'ci', limits: { rpm: 10 } });

      const listed = await call(app, 'GET', '/tenants/globex/keys');
      const read = await call(app, 'GET', '/tenants/globex/keys/ci');
      const sha256 = principal?.key.sha256 ?? 'missing';
      for (const text of [JSON.stringify(listed.body), JSON.stringify(read.body)]) {
        expect(text).not.toContain(plaintext);
        expect(text).not.toContain(sha256);
        expect(text).not.toMatch(/sha256|"key"/);
      }
      expect(listed.body.data).toEqual([read.body]);
      expect((await call(app, 'POST', '/tenants/globex/keys', { id: 'ci' })).body.error.code).toBe('key_exists');
      expect((await call(app, 'POST', '/tenants/nobody/keys')).status).toBe(404);
    });

    storeTest('should give a key an id when none is asked for', async ({ redisUrl }) => {
      const { app, service } = await startCatalog(redisUrl);
      const created = await call(app, 'POST', '/tenants/acme/keys');
      expect(created.status).toBe(201);
      expect(created.body.id).toMatch(/^key-[0-9a-f]{12}$/);
      expect(service.source.current().authenticate(created.body.key)?.key.id).toBe(created.body.id);
    });

    storeTest('should rotate a key: the new plaintext works, the old one no longer', async ({ redisUrl }) => {
      const { app, service } = await startCatalog(redisUrl);
      const created = await call(app, 'POST', '/tenants/acme/keys', { id: 'deploy', models: ['fast-chat'] });
      const rotated = await call(app, 'POST', '/tenants/acme/keys/deploy/rotate');
      expect(rotated.status).toBe(200);
      expect(rotated.body).toMatchObject({ id: 'deploy', tenantId: 'acme', models: ['fast-chat'], rotatedAt: expect.any(String) });
      expect(rotated.body.key).not.toBe(created.body.key);
      const index = service.source.current();
      expect(index.authenticate(created.body.key)).toBeUndefined();
      expect(index.authenticate(rotated.body.key)?.key.id).toBe('deploy');
      expect((await call(app, 'GET', '/tenants/acme/keys/deploy')).body).not.toHaveProperty('key');
    });

    storeTest('should revoke a key, and every key of a deleted tenant', async ({ redisUrl }) => {
      const { app, service } = await startCatalog(redisUrl);
      const one = await call(app, 'POST', '/tenants/acme/keys', { id: 'one' });
      expect((await call(app, 'DELETE', '/tenants/acme/keys/one')).body).toEqual({ id: 'one', tenantId: 'acme', deleted: true });
      expect(service.source.current().authenticate(one.body.key)).toBeUndefined();
      expect((await call(app, 'DELETE', '/tenants/acme/keys/one')).status).toBe(404);

      await call(app, 'POST', '/tenants', { id: 'globex' });
      const keys = [await call(app, 'POST', '/tenants/globex/keys'), await call(app, 'POST', '/tenants/globex/keys')];
      expect((await call(app, 'DELETE', '/tenants/globex')).body.revokedKeys).toBe(2);
      for (const key of keys) expect(service.source.current().authenticate(key.body.key)).toBeUndefined();
      // A tenant re-created with that id starts without the old keys.
      await call(app, 'POST', '/tenants', { id: 'globex' });
      for (const key of keys) expect(service.source.current().authenticate(key.body.key)).toBeUndefined();
      expect((await call(app, 'GET', '/tenants/globex/keys')).body.data).toEqual([]);
    });

    storeTest('should put per-key limit and model overrides into the snapshot', async ({ redisUrl }) => {
      const { app, service } = await startCatalog(redisUrl);
      const created = await call(app, 'POST', '/tenants/acme/keys', { id: 'narrow', limits: { rpm: 5, tpm: 100 } });
      const before = service.source.current().version;
      const patched = await call(app, 'PATCH', '/tenants/acme/keys/narrow', { limits: { rpm: 7, tpm: null, concurrency: 2 }, models: ['big-chat'] });
      expect(patched.body).toMatchObject({ limits: { rpm: 7, concurrency: 2 }, models: ['big-chat'] });
      const index = service.source.current();
      expect(index.version).toBeGreaterThan(before);
      const record = index.snapshot.keys.find((key) => key.id === 'narrow');
      expect(record).toMatchObject({ tenantId: 'acme', limits: { rpm: 7, concurrency: 2 }, models: ['big-chat'] });
      const principal = index.authenticate(created.body.key);
      expect(principal && index.allows(principal.tenant, principal.key, 'fast-chat')).toBe(false);
      expect(principal && index.visibleModels(principal.tenant, principal.key).map((model) => model.name)).toEqual(['big-chat']);
      // null removes the override: the key sees the tenant's models again.
      await call(app, 'PATCH', '/tenants/acme/keys/narrow', { models: null });
      expect(service.source.current().snapshot.keys.find((key) => key.id === 'narrow')).not.toHaveProperty('models');
    });

    storeTest('should keep config-file tenants and keys read-only but allow runtime keys on them', async ({ redisUrl }) => {
      const { app, service } = await startCatalog(redisUrl);
      expect((await call(app, 'GET', '/tenants/acme')).body).toEqual({ id: 'acme', models: ['*'], limits: { rpm: 600 }, source: 'config', keyCount: 1 });
      expect((await call(app, 'GET', '/tenants/acme/keys/ci')).body).toEqual({ id: 'ci', tenantId: 'acme', limits: {}, source: 'config' });
      for (const [method, url, body] of [
        ['PATCH', '/tenants/acme', { limits: { rpm: 1 } }],
        ['DELETE', '/tenants/acme', undefined],
        ['PATCH', '/tenants/acme/keys/ci', { limits: { rpm: 1 } }],
        ['POST', '/tenants/acme/keys/ci/rotate', undefined],
        ['DELETE', '/tenants/acme/keys/ci', undefined],
      ] as const) {
        const response = await call(app, method, url, body);
        expect(response.status, `${method} ${url}`).toBe(409);
        expect(response.body.error).toMatchObject({ type: 'conflict_error', code: 'managed_by_config' });
      }
      expect((await call(app, 'POST', '/tenants', { id: 'acme' })).status).toBe(409);
      expect(service.source.current().authenticate(ACME_CI_KEY)?.key.id).toBe('ci');
      const runtimeKey = await call(app, 'POST', '/tenants/acme/keys', { id: 'extra' });
      expect(service.source.current().authenticate(runtimeKey.body.key)?.tenant.id).toBe('acme');
      expect((await call(app, 'GET', '/tenants/acme')).body.keyCount).toBe(2);
    });
  });
}

describe('admin plugin inside another app', () => {
  it('should parse its own JSON bodies in an app that reads every body raw (the ingress of `all`)', async () => {
    const service = await createCatalogService({ config: catalogConfig(), adminToken: TOKEN });
    const app = Fastify();
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    app.setErrorHandler((_error, _request, reply) => reply.code(418).send('not the admin handler'));
    await app.register(service.adminPlugin);
    onTestFinished(async () => {
      await app.close();
      await service.close();
    });
    const response = await app.inject({ method: 'POST', url: '/admin/v1/tenants', headers: auth, payload: { id: 'globex', limits: { rpm: 3 } } });
    expect(response.statusCode).toBe(201);
    expect(service.source.current().tenant('globex')?.limits).toEqual({ rpm: 3 });
    expect((await app.inject({ method: 'POST', url: '/admin/v1/tenants', headers: auth, payload: { id: 1 } })).json().error.param).toBe('id');
    // The admin plugin serves no snapshot: upstream credentials stay off a public port.
    expect((await app.inject({ method: 'GET', url: '/internal/v1/catalog' })).statusCode).toBe(404);
  });

  it('should put extra admin routes behind the same token and error format', async () => {
    const service = await createCatalogService({
      config: catalogConfig(),
      adminToken: TOKEN,
      adminRoutes: [
        async (app) => {
          app.get('/usage', async () => ({ data: [] }));
        },
      ],
    });
    const app = buildCatalogApp({ service, metrics: new Metrics() });
    onTestFinished(async () => {
      await app.close();
      await service.close();
    });
    expect((await app.inject({ method: 'GET', url: '/admin/v1/usage' })).statusCode).toBe(401);
    expect((await call(app, 'GET', '/usage')).body).toEqual({ data: [] });
  });
});
