import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.ts';

/**
 * `/healthz` (alive), `/readyz` (can serve now: dependencies loaded, not draining) and
 * `/metrics` (Prometheus text) — the same three on every target.
 */
export function registerOpsRoutes(app: FastifyInstance, options: { metrics: Metrics; isReady: () => boolean }): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const ready = options.isReady();
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready' });
  });
  app.get('/metrics', async (_request, reply) => {
    const text = await options.metrics.registry.metrics();
    return reply.type(options.metrics.registry.contentType).send(text);
  });
}
