import { requireInternalToken, type CatalogSource, type InternalRefusal, type InternalTokens } from '@switchyard/catalog-client';
import { registerOpsRoutes, type Metrics } from '@switchyard/telemetry';
import Fastify, { type FastifyInstance } from 'fastify';
import type { CatalogService } from './create-catalog-service.ts';
import { createSnapshotRoutes, snapshotFeedFromSource } from './internal/snapshot-routes.ts';

export type CatalogAppOptions = (
  /** The catalog target: admin API, long-polled snapshot route, readiness from the service. */
  | { service: CatalogService; metrics: Metrics }
  /** Read-only: the snapshot route over any source (a static catalog), no admin API. */
  | { source: CatalogSource; metrics: Metrics }
) & {
  /**
   * SWITCHYARD_INTERNAL_TOKEN: when set, `/internal/v1/*` (the snapshot, with upstream keys)
   * answers 401 without one of these, so reaching the port (e.g. to scrape /metrics) is not enough.
   */
  internalTokens?: InternalTokens;
  /** Told of refused internal calls, at most once a minute (with how many). */
  onInternalRefused?: (refusal: InternalRefusal) => void;
};

/**
 * The catalog service's HTTP app: the source of truth ingresses and routers long-poll
 * (`/internal/v1/catalog`), the admin API (`/admin/v1`), and the ops routes. Returns the app;
 * the caller listens.
 */
export function buildCatalogApp(options: CatalogAppOptions): FastifyInstance {
  // Long-polls are held up to a minute: the server must not time them out.
  const app = Fastify({ logger: false, requestTimeout: 0, keepAliveTimeout: 75_000 });
  if (options.internalTokens !== undefined) app.addHook('onRequest', requireInternalToken(options.internalTokens, options.onInternalRefused));
  if ('service' in options) {
    registerOpsRoutes(app, { metrics: options.metrics, isReady: options.service.isReady });
    void app.register(options.service.plugin);
  } else {
    registerOpsRoutes(app, { metrics: options.metrics, isReady: options.source.isReady });
    void app.register(createSnapshotRoutes(snapshotFeedFromSource(options.source)));
  }
  return app;
}
