import { buildSnapshot, createStaticCatalog, INTERNAL_AUTH_REFUSED_HEADER, type InternalRefusal } from '@switchyard/catalog-client';
import { Metrics } from '@switchyard/telemetry';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildCatalogApp } from './app.ts';
import { createCatalogService } from './create-catalog-service.ts';
import { catalogConfig } from './testing/catalog-config.ts';

const INTERNAL_TOKEN = 'internal-token-0123456789abcdef';
/** Accepted beside INTERNAL_TOKEN, as during a rotation. */
const OTHER_INTERNAL_TOKEN = 'other-internal-token-0123456789abcdef';

describe('buildCatalogApp', () => {
  it('should serve a static source read-only, long-polling included', async () => {
    const { snapshot } = buildSnapshot(catalogConfig());
    const source = createStaticCatalog(snapshot);
    const app = buildCatalogApp({ source, metrics: new Metrics() });
    onTestFinished(() => app.close());
    expect((await app.inject({ url: '/internal/v1/catalog' })).json().version).toBe(1);
    expect((await app.inject({ url: '/internal/v1/catalog?version=1' })).statusCode).toBe(304);
    const held = app.inject({ url: '/internal/v1/catalog?version=1&waitMs=5000' });
    setTimeout(() => source.update({ ...snapshot, version: 2 }), 100);
    const answer = await held;
    expect(answer.statusCode).toBe(200);
    expect(answer.json().version).toBe(2);
    expect((await app.inject({ url: '/admin/v1/tenants' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
  });

  it('should serve a catalog service: snapshot, admin API and readiness', async () => {
    const service = await createCatalogService({ config: catalogConfig(), adminToken: 'admin-token-0123456789' });
    const app = buildCatalogApp({ service, metrics: new Metrics() });
    onTestFinished(async () => {
      await app.close();
      await service.close();
    });
    const served = await app.inject({ url: '/internal/v1/catalog' });
    expect(served.json()).toEqual(service.source.current().snapshot);
    const tenants = await app.inject({ url: '/admin/v1/tenants', headers: { authorization: 'Bearer admin-token-0123456789' } });
    expect(tenants.json().data.map((tenant: { id: string }) => tenant.id)).toEqual(['acme']);
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
    await service.close();
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(503);
    expect((await app.inject({ url: '/internal/v1/catalog' })).statusCode).toBe(503);
  });

  it('should refuse internal routes without one of the internal tokens, and leave the ops routes open', async () => {
    const service = await createCatalogService({ config: catalogConfig(), adminToken: 'admin-token-0123456789' });
    const refusals: InternalRefusal[] = [];
    const app = buildCatalogApp({ service, metrics: new Metrics(), internalTokens: [INTERNAL_TOKEN, OTHER_INTERNAL_TOKEN], onInternalRefused: (refusal) => refusals.push(refusal) });
    onTestFinished(async () => {
      await app.close();
      await service.close();
    });
    const missing = await app.inject({ url: '/internal/v1/catalog' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().error.code).toBe('invalid_internal_token');
    expect(missing.headers[INTERNAL_AUTH_REFUSED_HEADER]).toBe('refused');
    for (const authorization of [`Bearer ${INTERNAL_TOKEN}x`, `Bearer ${INTERNAL_TOKEN.slice(1)}`, INTERNAL_TOKEN, 'Bearer admin-token-0123456789']) {
      const wrong = await app.inject({ url: '/internal/v1/catalog?version=1', headers: { authorization } });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.body).not.toContain(INTERNAL_TOKEN);
    }
    // Reported once (the first), not once per refusal; never with what was sent.
    expect(refusals).toEqual([{ count: 1, path: '/internal/v1/catalog', remoteAddress: '127.0.0.1' }]);
    for (const token of [INTERNAL_TOKEN, OTHER_INTERNAL_TOKEN]) {
      const served = await app.inject({ url: '/internal/v1/catalog', headers: { authorization: `Bearer ${token}` } });
      expect(served.statusCode).toBe(200);
      expect(served.json()).toEqual(service.source.current().snapshot);
    }
    for (const url of ['/healthz', '/readyz', '/metrics']) expect((await app.inject({ url })).statusCode).toBe(200);
    // The admin API keeps its own token.
    const tenants = await app.inject({ url: '/admin/v1/tenants', headers: { authorization: 'Bearer admin-token-0123456789' } });
    expect(tenants.statusCode).toBe(200);
  });
});
