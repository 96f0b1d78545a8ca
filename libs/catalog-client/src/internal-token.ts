import { createHash, timingSafeEqual } from 'node:crypto';
import type { onRequestHookHandler } from 'fastify';

/**
 * The shared secret of the split topology's internal hops (ingress → router, ingress/router →
 * catalog). It lives here because every process on either end of a hop already depends on the
 * catalog client.
 */
export const INTERNAL_TOKEN_ENV = 'SWITCHYARD_INTERNAL_TOKEN';

/** Routes under this prefix need the token; ops routes (`/healthz`, `/readyz`, `/metrics`) stay open. */
export const INTERNAL_PATH_PREFIX = '/internal/';

/**
 * Set on the 401 of a refused internal call, so a caller can tell it from a 401 that is someone
 * else's answer passed through (an upstream provider refusing its key).
 */
export const INTERNAL_AUTH_REFUSED_HEADER = 'x-switchyard-internal-auth';

/** The Authorization value a caller sends: built once per process, not per request. */
export function internalAuthorization(token: string): string {
  return `Bearer ${token}`;
}

export interface InternalRefusal {
  /** Refusals since the last report (reports are at most once per `REFUSAL_REPORT_MS`). */
  count: number;
  path: string;
  remoteAddress: string | undefined;
}

/** A misconfigured or hostile caller can be refused thousands of times a second: the log must not follow. */
const REFUSAL_REPORT_MS = 60_000;

/**
 * An onRequest hook that answers 401 to calls of internal routes without `Authorization: Bearer
 * <token>`, before their body is read. The check is by the matched route, not the raw URL, so
 * no spelling of the path gets around it. Both sides are hashed first: equal-length digests make
 * the comparison constant-time whatever was sent. The token itself is never reported.
 */
export function requireInternalToken(token: string, onRefused?: (refusal: InternalRefusal) => void): onRequestHookHandler {
  const expected = sha256(internalAuthorization(token));
  let unreported = 0;
  let reportedAt = -Infinity;
  return (request, reply, done) => {
    if (request.routeOptions.url?.startsWith(INTERNAL_PATH_PREFIX) !== true) return done();
    const authorization = request.headers.authorization;
    if (authorization !== undefined && timingSafeEqual(sha256(authorization), expected)) return done();
    unreported++;
    const now = Date.now();
    if (onRefused !== undefined && now - reportedAt >= REFUSAL_REPORT_MS) {
      onRefused({ count: unreported, path: request.routeOptions.url, remoteAddress: request.socket.remoteAddress });
      unreported = 0;
      reportedAt = now;
    }
    void reply
      .code(401)
      .header(INTERNAL_AUTH_REFUSED_HEADER, 'refused')
      .header('cache-control', 'no-store')
      .send({ error: { message: 'Missing or invalid internal token.', type: 'authentication_error', code: 'invalid_internal_token' } });
  };
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
