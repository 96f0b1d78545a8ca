import type { ServerResponse } from 'node:http';
import { GatewayError } from '@switchyard/canonical';
import { wireFormats, writeError, type Route } from '@switchyard/formats';
import { closePartialEvent, PASSED_HEADERS, type RouteHandler } from '@switchyard/router-client';
import {
  activeContext,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SWITCHYARD_FORMAT,
  ATTR_SWITCHYARD_REQUEST_ID,
  ATTR_SWITCHYARD_TENANT,
  extractTraceContext,
  injectTraceHeaders,
  SpanKind,
  SpanStatusCode,
  withSpan,
  type Metrics,
  type Tracer,
} from '@switchyard/telemetry';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ForwardedRequests } from './forwarded-requests.ts';

/**
 * Hands the raw body to a router and lets it write the answer straight to the client socket.
 * The upstream call is aborted as soon as the client goes away.
 */
export function forward(
  telemetry: { tracer: Tracer; metrics: Metrics; forwarded: ForwardedRequests },
  handler: RouteHandler<ServerResponse>,
  request: FastifyRequest,
  reply: FastifyReply,
  route: Route,
): Promise<void> {
  const { tracer, metrics } = telemetry;
  // The trace starts here (or continues the client's traceparent) and reaches the router in headers.
  return withSpan(
    tracer,
    `${request.method} ${request.routeOptions.url ?? ''}`,
    {
      [ATTR_SWITCHYARD_FORMAT]: route.format,
      [ATTR_SWITCHYARD_TENANT]: request.principal?.tenant.id,
      [ATTR_SWITCHYARD_REQUEST_ID]: request.id,
    },
    async (span) => {
      metrics.inflight.inc({ target: 'ingress' });
      try {
        await forwardToRouter(handler, request, reply, route, telemetry.forwarded);
      } finally {
        metrics.inflight.dec({ target: 'ingress' });
      }
      const status = reply.raw.statusCode;
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      if (status >= 500) {
        span.setAttribute(ATTR_ERROR_TYPE, String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
    },
    { kind: SpanKind.SERVER, parent: extractTraceContext(request.headers) },
  );
}

async function forwardToRouter(
  handler: RouteHandler<ServerResponse>,
  request: FastifyRequest,
  reply: FastifyReply,
  route: Route,
  forwarded: ForwardedRequests,
): Promise<void> {
  const principal = request.principal;
  if (principal === undefined) throw new GatewayError('authentication', 'Missing API key.');
  reply.hijack();
  const response = reply.raw;
  const controller = new AbortController();
  const forget = forwarded.add(controller);
  response.on('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  const headers: Record<string, string> = {};
  for (const name of PASSED_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  injectTraceHeaders(activeContext(), headers);
  try {
    await handler(
      {
        route,
        identity: { tenantId: principal.tenant.id, keyId: principal.key.id, requestId: request.id },
        body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
        headers,
        query: request.query as Record<string, string>,
        signal: controller.signal,
        receivedAt: performance.now() - reply.elapsedTime,
        estimatedTokens: request.estimatedTokens,
        admittedAt: request.admittedAt,
      },
      response,
    );
  } catch (error) {
    // Only failures of the hop reach here (the router renders its own errors): transport
    // failures, and the forwarder's own errors, such as a router refusing the internal token.
    const reason: unknown = controller.signal.reason;
    const failure = GatewayError.isInstance(reason)
      ? reason
      : controller.signal.aborted
      ? new GatewayError('client_closed', 'Client closed the request.')
      : GatewayError.isInstance(error) && !response.headersSent
      ? error
      : new GatewayError(
          'unavailable',
          response.headersSent ? 'The answer broke off: the router serving it stopped.' : 'No router could serve the request.',
          { cause: error },
        );
    closePartialEvent(response);
    writeError(response, wireFormats[route.format], failure, request.id);
  } finally {
    forget();
  }
}
