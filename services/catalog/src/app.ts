import { CATALOG_SNAPSHOT_PATH, type CatalogSource } from '@switchyard/catalog-client';
import { registerOpsRoutes, type Metrics } from '@switchyard/telemetry';
import Fastify, { type FastifyInstance } from 'fastify';

/**
 * The catalog service: the source of truth ingresses and routers poll. A poll that already
 * has the current version gets 304 and no body.
 */
export function buildCatalogApp(options: { source: CatalogSource; metrics: Metrics }): FastifyInstance {
  const app = Fastify({ logger: false });
  registerOpsRoutes(app, { metrics: options.metrics, isReady: options.source.isReady });
  app.get<{ Querystring: { version?: string } }>(CATALOG_SNAPSHOT_PATH, async (request, reply) => {
    const index = options.source.current();
    if (request.query.version !== undefined && Number(request.query.version) === index.version) {
      return reply.code(304).send();
    }
    return reply.type('application/json').send(index.snapshot);
  });
  return app;
}
