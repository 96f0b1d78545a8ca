import { GatewayError } from '@switchyard/canonical';
import { toGatewayError, wireFormats } from '@switchyard/formats';
import type { Logger } from '@switchyard/telemetry';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_DRAIN_BOUNDS, drainUnreadBody, type DrainBounds } from '@switchyard/http-server';

/**
 * The one place ingress renders errors, always in the client's own format. fastify's own
 * failures (body too large, bad framing) are mapped to gateway kinds first. An answer sent
 * before the body was read keeps the connection and drains the rest (drain-unread-body.ts).
 */
export function registerErrorHandler(app: FastifyInstance, logger: Logger, drain: DrainBounds = DEFAULT_DRAIN_BOUNDS): void {
  const answer = (failure: GatewayError, request: FastifyRequest, reply: FastifyReply) => {
    drainUnreadBody(request.raw, reply, drain);
    const rendered = wireFormats[request.clientFormat].errors.render(failure, request.id);
    void reply.code(rendered.status).headers(rendered.headers).header('x-request-id', request.id).send(rendered.body);
  };

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const failure = fromFastifyError(error);
    if (failure.kind === 'internal') logger.error({ err: error, requestId: request.id }, 'ingress error');
    answer(failure, request, reply);
  });

  app.setNotFoundHandler((request, reply) => {
    answer(new GatewayError('not_found', `No route for ${request.method} ${request.url.split('?')[0] ?? ''}.`), request, reply);
  });
}

function fromFastifyError(error: FastifyError): GatewayError {
  if (GatewayError.isInstance(error)) return error;
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GatewayError('request_too_large', 'Request body is larger than the limit.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new GatewayError('invalid_request', error.message);
    default:
      return error.statusCode !== undefined && error.statusCode < 500
        ? new GatewayError('invalid_request', error.message)
        : toGatewayError(error);
  }
}
