import { GatewayError } from '@switchyard/canonical';
import { requireInternalToken, type InternalRefusal, type InternalTokens } from '@switchyard/catalog-client';
import { wireFormats, writeError } from '@switchyard/formats';
import {
  acceptHops,
  ADMITTED_AT_HEADER,
  decodeAdmittedAt,
  decodeRoute,
  ESTIMATED_TOKENS_HEADER,
  HOP_CONTENT_TYPE,
  KEY_ID_HEADER,
  PASSED_HEADERS,
  QUERY_HEADER,
  REQUEST_ID_HEADER,
  ROUTE_HEADER,
  ROUTER_PATH,
  TENANT_HEADER,
  type RouteRequest,
} from '@switchyard/router-client';
import { registerOpsRoutes, type Metrics } from '@switchyard/telemetry';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Router } from './create-router.ts';

const HOP_META_ALLOWANCE = 1 << 20;

/**
 * The router as its own HTTP service (split mode). Ingresses send requests over hop connections
 * (an HTTP upgrade on this port, router-client's hop/), many at once on each. ROUTER_PATH serves
 * one request per HTTP call, the raw client body with the route and identity in headers, for
 * ingresses of the release before the hop; its answer is written straight to the socket
 * (hijacked reply) so streams are not buffered by fastify.
 */
export function buildRouterApp(options: {
  router: Router;
  metrics: Metrics;
  isReady: () => boolean;
  bodyLimit: number;
  /**
   * SWITCHYARD_INTERNAL_TOKEN: when set, route calls without one of these get 401 before their
   * body is read. The identity headers are trusted, so without it whoever reaches the port is any
   * tenant.
   */
  internalTokens?: InternalTokens;
  /** Told of refused route calls, at most once a minute (with how many). */
  onInternalRefused?: (refusal: InternalRefusal) => void;
}): FastifyInstance {
  // Requests already on their way from an ingress are served during a drain, not refused.
  const app = Fastify({ bodyLimit: options.bodyLimit, logger: false, return503OnClosing: false });
  if (options.internalTokens !== undefined) app.addHook('onRequest', requireInternalToken(options.internalTokens, options.onInternalRefused));
  app.removeAllContentTypeParsers();
  // The hop's own type is named besides the catch-all: fastify caches the parser found for a
  // content type, but not the catch-all, which would parse the header again on every hop.
  for (const type of [HOP_CONTENT_TYPE, '*']) app.addContentTypeParser(type, { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  registerOpsRoutes(app, { metrics: options.metrics, isReady: options.isReady });
  const hops = acceptHops(app.server, {
    handler: options.router.handle,
    // The body limit, and room for the identity, route and client headers beside it.
    maxRequestBytes: options.bodyLimit + HOP_META_ALLOWANCE,
    ...(options.internalTokens === undefined ? {} : { tokens: options.internalTokens }),
    ...(options.onInternalRefused === undefined ? {} : { onRefused: options.onInternalRefused }),
  });
  options.metrics.countHopConnections(() => hops.connections);
  // As the listener stops, every hop is told to open no new streams; each closes once its streams have ended.
  app.addHook('preClose', (done) => {
    hops.drain();
    done();
  });

  app.post(ROUTER_PATH, (request, reply) => {
    reply.hijack();
    const headers = request.headers as Record<string, string | undefined>;
    const requestId = headers[REQUEST_ID_HEADER] ?? 'unknown';
    const route = decodeRoute(headers[ROUTE_HEADER]);
    const tenantId = headers[TENANT_HEADER];
    const keyId = headers[KEY_ID_HEADER];
    if (route === undefined || tenantId === undefined || keyId === undefined) {
      writeError(reply.raw, wireFormats['chat-completions'], new GatewayError('invalid_request', 'Missing internal route headers.'), requestId);
      return;
    }
    const controller = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    const passed: Record<string, string> = {};
    for (const name of PASSED_HEADERS) {
      const value = headers[name];
      if (value !== undefined) passed[name] = value;
    }
    const routeRequest: RouteRequest = {
      route,
      identity: { tenantId, keyId, requestId },
      body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
      headers: passed,
      query: Object.fromEntries(new URLSearchParams(headers[QUERY_HEADER] ?? '')),
      signal: controller.signal,
      receivedAt: performance.now(),
      estimatedTokens: Number(headers[ESTIMATED_TOKENS_HEADER] ?? 0) || 0,
      admittedAt: decodeAdmittedAt(headers[ADMITTED_AT_HEADER]),
    };
    void options.router.handle(routeRequest, reply.raw);
  });
  return app;
}
