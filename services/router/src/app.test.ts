import { INTERNAL_AUTH_REFUSED_HEADER, type InternalRefusal } from '@switchyard/catalog-client';
import { encodeRoute, KEY_ID_HEADER, ROUTE_HEADER, ROUTER_PATH, TENANT_HEADER, type RouteRequest } from '@switchyard/router-client';
import { Metrics } from '@switchyard/telemetry';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildRouterApp } from './app.ts';
import type { Router } from './create-router.ts';

const INTERNAL_TOKEN = 'internal-token-0123456789abcdef';
/** Accepted beside INTERNAL_TOKEN, as during a rotation. */
const OTHER_INTERNAL_TOKEN = 'other-internal-token-0123456789abcdef';

/** Answers with the identity it was handed, so a test sees whether the route call got through. */
function echoRouter(): Router & { served: RouteRequest[] } {
  const served: RouteRequest[] = [];
  return {
    served,
    async handle(request, response) {
      served.push(request);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(request.identity));
    },
    terminateStreams() {},
    async close() {},
  };
}

const routeHeaders = {
  [ROUTE_HEADER]: encodeRoute({ format: 'chat-completions', operation: 'generate' }),
  [TENANT_HEADER]: 'acme',
  [KEY_ID_HEADER]: 'acme-key',
  'content-type': 'application/octet-stream',
};

describe('buildRouterApp', () => {
  it('should refuse route calls without one of the internal tokens before serving them, and leave the ops routes open', async () => {
    const router = echoRouter();
    const refusals: InternalRefusal[] = [];
    const app = buildRouterApp({
      router,
      metrics: new Metrics(),
      isReady: () => true,
      bodyLimit: 1024,
      internalTokens: [INTERNAL_TOKEN, OTHER_INTERNAL_TOKEN],
      onInternalRefused: (refusal) => refusals.push(refusal),
    });
    onTestFinished(() => app.close());
    const call = (authorization?: string) =>
      app.inject({ method: 'POST', url: ROUTER_PATH, headers: { ...routeHeaders, ...(authorization === undefined ? {} : { authorization }) }, payload: '{}' });

    const missing = await call();
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['content-type']).toMatch(/^application\/json/);
    expect(missing.json().error.code).toBe('invalid_internal_token');
    expect(missing.headers[INTERNAL_AUTH_REFUSED_HEADER]).toBe('refused');
    for (const authorization of [`Bearer ${INTERNAL_TOKEN}x`, `Bearer ${INTERNAL_TOKEN.toUpperCase()}`, `Basic ${INTERNAL_TOKEN}`]) {
      const wrong = await call(authorization);
      expect(wrong.statusCode).toBe(401);
      expect(wrong.body).not.toContain(INTERNAL_TOKEN);
    }
    expect(router.served).toEqual([]);
    expect(refusals).toEqual([{ count: 1, path: ROUTER_PATH, remoteAddress: '127.0.0.1' }]);

    for (const token of [INTERNAL_TOKEN, OTHER_INTERNAL_TOKEN]) {
      const served = await call(`Bearer ${token}`);
      expect(served.statusCode).toBe(200);
      expect(served.json()).toMatchObject({ tenantId: 'acme', keyId: 'acme-key' });
    }
    for (const url of ['/healthz', '/readyz', '/metrics']) expect((await app.inject({ url })).statusCode).toBe(200);
  });

  it('should serve route calls without a token when it has none (unauthenticated split setups)', async () => {
    const router = echoRouter();
    const app = buildRouterApp({ router, metrics: new Metrics(), isReady: () => true, bodyLimit: 1024 });
    onTestFinished(() => app.close());
    const served = await app.inject({ method: 'POST', url: ROUTER_PATH, headers: routeHeaders, payload: '{}' });
    expect(served.statusCode).toBe(200);
    expect(router.served).toHaveLength(1);
  });
});
