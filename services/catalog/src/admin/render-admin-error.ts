import { DEFAULT_DRAIN_BOUNDS, drainUnreadBody } from '@switchyard/http-server';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { CatalogLogger } from '../logger.ts';
import { AdminError, errorTypeFor } from './admin-error.ts';

export interface AdminErrorBody {
  error: { message: string; type: string; code: string; param?: string };
}

/**
 * The one error handler of the admin API: every failure becomes
 * `{"error":{"message","type","code"}}`. Validation errors name the field path (`param`);
 * unexpected errors are logged and answered without their details. One answered before the
 * body was read (over the limit, a bad token) keeps the connection, so that the client reads
 * the answer rather than a reset (drainUnreadBody).
 */
export function createAdminErrorHandler(logger: CatalogLogger) {
  return (error: FastifyError | AdminError, request: FastifyRequest, reply: FastifyReply) => {
    drainUnreadBody(request.raw, reply, DEFAULT_DRAIN_BOUNDS);
    const failure = toAdminError(error);
    if (failure.statusCode >= 500 && failure.code === 'internal_error') logger.error({ err: error, url: request.url }, 'admin API error');
    if (failure.statusCode === 401) void reply.header('www-authenticate', 'Bearer');
    void reply.code(failure.statusCode).send(renderAdminError(failure));
  };
}

export function renderAdminError(failure: AdminError): AdminErrorBody {
  return {
    error: {
      message: failure.message,
      type: errorTypeFor(failure.statusCode),
      code: failure.code,
      ...(failure.param === undefined ? {} : { param: failure.param }),
    },
  };
}

const FASTIFY_CODES: Partial<Record<number, string>> = { 413: 'request_too_large', 415: 'unsupported_media_type' };

function toAdminError(error: FastifyError | AdminError): AdminError {
  if (error instanceof AdminError) return error;
  if (error instanceof z.ZodError) return fromZodError(error, (error as { validationContext?: string }).validationContext);
  const status = error.statusCode;
  // fastify's own refusals (framing, media type, size): its FST_ERR_* codes are not this API's.
  if (status !== undefined && status >= 400 && status < 500) return new AdminError(status, FASTIFY_CODES[status] ?? 'invalid_request', error.message);
  return new AdminError(500, 'internal_error', 'Internal error.');
}

/** One message naming every bad field by its path (`limits.rpm: …`); `param` is the first. */
function fromZodError(error: z.ZodError, context: string | undefined): AdminError {
  const problems = error.issues.map((issue) => {
    const path = [...issue.path.map(String), ...(issue.code === 'unrecognized_keys' ? issue.keys.slice(0, 1) : [])];
    return { path: path.join('.'), message: issue.message };
  });
  const where = (path: string) => (path === '' ? (context ?? 'body') : path);
  const message = problems.map((problem) => `${where(problem.path)}: ${problem.message}`).join('; ');
  return new AdminError(400, 'invalid_request', message, { param: where(problems[0]?.path ?? '') });
}
