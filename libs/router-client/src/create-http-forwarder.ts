import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { Pool, type Dispatcher } from 'undici';
import { encodeRoute, identityHeaders, QUERY_HEADER, ROUTE_HEADER, ROUTER_PATH } from './route-headers.ts';
import type { RouteHandler } from './route-request.ts';

/** Hop-by-hop headers are not copied from the router's answer to the client's. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-connection']);

export interface HttpForwarder {
  handle: RouteHandler;
  close(): Promise<void>;
}

/**
 * Split mode: ingress forwards the raw body to a router over a keep-alive pool and pipes the
 * router's bytes back unchanged. Several router URLs are used round-robin; a router that cannot
 * be reached (gone, draining) is skipped and the request goes to the next before any byte moved.
 */
/** Failures that happen before a router answered anything: another router can take the request. */
const RETRYABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_CONNECT_TIMEOUT']);

/** How long a router that refused a connection is skipped. */
const DOWN_FOR_MS = 2000;

export function createHttpForwarder(options: { urls: string[]; connections?: number }): HttpForwarder {
  const routers = options.urls.map((url) => ({
    // Uncapped: each open stream holds one connection to its router.
    pool: new Pool(url, { connections: options.connections ?? null, pipelining: 1, keepAliveTimeout: 30_000 }),
    downUntil: 0,
  }));
  let next = 0;

  /** Routers in round-robin order from the next one, those marked down last. */
  const order = () => {
    const start = next++;
    const now = Date.now();
    const rotated = routers.map((_, index) => routers[(start + index) % routers.length] as (typeof routers)[number]);
    return [...rotated.filter((router) => router.downUntil <= now), ...rotated.filter((router) => router.downUntil > now)];
  };

  const handle: RouteHandler = async (request, response) => {
    const headers: Record<string, string> = {
      ...request.headers,
      ...identityHeaders(request.identity, request.estimatedTokens),
      [ROUTE_HEADER]: encodeRoute(request.route),
      'content-type': 'application/octet-stream',
    };
    if (Object.keys(request.query).length > 0) headers[QUERY_HEADER] = new URLSearchParams(request.query).toString();
    let lastError: unknown = new Error('no router configured');
    for (const router of order()) {
      try {
        await router.pool.stream(
          {
            path: ROUTER_PATH,
            method: 'POST',
            headers,
            body: request.body,
            signal: request.signal,
            // The router enforces upstream timeouts itself; the hop only guards against a dead router.
            headersTimeout: 0,
            bodyTimeout: 0,
          },
          ({ statusCode, headers: routerHeaders }: Dispatcher.StreamFactoryData) => {
            for (const [name, value] of Object.entries(routerHeaders)) {
              if (value !== undefined && !HOP_BY_HOP.has(name)) response.setHeader(name, value);
            }
            response.writeHead(statusCode);
            response.flushHeaders();
            return relayTo(response);
          },
        );
        return;
      } catch (error) {
        // Once the router has answered, its bytes are the client's: never try another router.
        const code = (error as { code?: string }).code;
        if (response.headersSent || request.signal.aborted || code === undefined || !RETRYABLE_CODES.has(code)) throw error;
        // A router that is gone or draining: skip it for a moment, let the next one take the request.
        router.downUntil = Date.now() + DOWN_FOR_MS;
        lastError = error;
      }
    }
    throw lastError;
  };

  return {
    handle,
    async close() {
      await Promise.all(routers.map((router) => router.pool.close()));
    },
  };
}

const boundaries = new WeakMap<ServerResponse, boolean>();

/**
 * After a router broke off mid-answer: closes a half-written SSE event with a blank line, so
 * the error event ingress writes next is an event of its own, never glued into another.
 */
export function closePartialEvent(response: ServerResponse): void {
  if (response.headersSent && !response.writableEnded && boundaries.get(response) === false) response.write('\n\n');
}

/**
 * The router's bytes go to the client through this writable rather than into the client
 * response itself: if the router dies mid-answer, undici destroys only the relay, and the
 * client response stays open for ingress to end it with the format's error event.
 */
function relayTo(response: ServerResponse): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      // Whether the bytes so far end between two SSE events (a blank line).
      boundaries.set(response, chunk.length >= 2 && chunk[chunk.length - 1] === 0x0a && chunk[chunk.length - 2] === 0x0a);
      if (response.write(chunk)) callback();
      else response.once('drain', () => callback());
    },
    final(callback) {
      response.end();
      callback();
    },
  });
}
