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
 * router's bytes back unchanged. Several router URLs are used round-robin.
 */
export function createHttpForwarder(options: { urls: string[]; connections?: number }): HttpForwarder {
  const pools = options.urls.map(
    (url) => new Pool(url, { connections: options.connections ?? 128, pipelining: 1, keepAliveTimeout: 30_000 }),
  );
  let next = 0;

  const handle: RouteHandler = async (request, response) => {
    const pool = pools[next++ % pools.length];
    if (pool === undefined) throw new Error('no router configured');
    const headers: Record<string, string> = {
      ...request.headers,
      ...identityHeaders(request.identity, request.estimatedTokens),
      [ROUTE_HEADER]: encodeRoute(request.route),
      'content-type': 'application/octet-stream',
    };
    if (Object.keys(request.query).length > 0) headers[QUERY_HEADER] = new URLSearchParams(request.query).toString();
    await pool.stream(
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
        return response;
      },
    );
  };

  return {
    handle,
    async close() {
      await Promise.all(pools.map((pool) => pool.close()));
    },
  };
}
