import type { ServerResponse } from 'node:http';
import type { CatalogSource } from '@switchyard/catalog-client';
import type { Limiter } from '@switchyard/ratelimit';
import type { RouteHandler } from '@switchyard/router-client';
import { registerOpsRoutes, type Logger, type Metrics, type Tracer } from '@switchyard/telemetry';
import Fastify, { type FastifyInstance } from 'fastify';
import { ClientResponse } from './client-response.ts';
import { ForwardedRequests } from './forwarded-requests.ts';
import { registerAdmission } from './plugins/admission.ts';
import { registerAuthenticate } from './plugins/authenticate.ts';
import { registerErrorHandler } from './plugins/error-handler.ts';
import { registerRawBody } from './plugins/raw-body.ts';
import './plugins/request-context.ts';
import { registerForwardedRoutes } from './routes/register-forwarded-routes.ts';
import { createRequestIds } from './request-id.ts';
import { registerModelRoutes } from './routes/register-model-routes.ts';

export interface IngressOptions {
  catalog: CatalogSource;
  /** In-process router (`all`) or the HTTP forwarder (split mode). */
  forward: RouteHandler<ServerResponse>;
  metrics: Metrics;
  logger: Logger;
  bodyLimit: number;
  isReady: () => boolean;
  limiter: Limiter;
  tracer: Tracer;
  /** Requests being relayed, for the end of a shutdown's grace period (split mode). */
  forwarded?: ForwardedRequests;
}

/** The public HTTP surface: authenticate, (admit), forward. Returns the app; main() listens. */
export function buildIngress(options: IngressOptions): FastifyInstance {
  const app = Fastify({
    bodyLimit: options.bodyLimit,
    logger: false,
    genReqId: createRequestIds(),
    // Long streams: the server must never cut a response for taking long.
    requestTimeout: 0,
    connectionTimeout: 0,
    keepAliveTimeout: 75_000,
    // While draining, a request that still arrives on an open connection is served (the drain
    // has time for it) rather than refused with fastify's own 503, which is in no client format.
    return503OnClosing: false,
    http: { ServerResponse: ClientResponse },
  });
  registerRawBody(app);
  registerErrorHandler(app, options.logger);
  registerOpsRoutes(app, { metrics: options.metrics, isReady: options.isReady });
  registerAuthenticate(app, options.catalog);
  registerAdmission(app, { limiter: options.limiter, metrics: options.metrics });
  registerModelRoutes(app, options.catalog);
  registerForwardedRoutes(app, options.forward, {
    tracer: options.tracer,
    metrics: options.metrics,
    forwarded: options.forwarded ?? new ForwardedRequests(),
  });
  return app;
}
