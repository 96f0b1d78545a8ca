import { buildSnapshot, createStaticCatalog } from '@switchyard/catalog-client';
import { Metrics } from '@switchyard/telemetry';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildCatalogApp } from './app.ts';
import { createCatalogService } from './create-catalog-service.ts';
import { catalogConfig } from './testing/catalog-config.ts';

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
});
