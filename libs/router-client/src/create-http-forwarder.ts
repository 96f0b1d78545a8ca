import { GatewayError } from '@switchyard/canonical';
import { INTERNAL_AUTH_REFUSED_HEADER, internalAuthorization, type InternalTokens } from '@switchyard/catalog-client';
import type { ServerResponse } from 'node:http';
import { AbortableDispatch } from '@switchyard/providers/abortable-dispatch';
import { Pool, type Dispatcher } from 'undici';
import { encodeRoute, HOP_CONTENT_TYPE, identityHeaders, QUERY_HEADER, ROUTE_HEADER, ROUTER_PATH } from './route-headers.ts';
import type { RouteHandler, RouteRequest } from './route-request.ts';

/** Hop-by-hop headers are not copied from the router's answer to the client's. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-connection']);

export interface HttpForwarder {
  handle: RouteHandler<ServerResponse>;
  close(): Promise<void>;
}

/** Failures that happen before a router answered anything: another router can take the request. */
const RETRYABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_CONNECT_TIMEOUT']);

/** How long a router that refused a connection is skipped. */
const DOWN_FOR_MS = 2000;

export interface HttpForwarderOptions {
  urls: string[];
  connections?: number;
  /**
   * SWITCHYARD_INTERNAL_TOKEN: the first is sent on every hop (the others are only what this
   * process accepts); routers started with tokens refuse hops without one of theirs.
   */
  tokens?: InternalTokens;
  /** A router refused the token (a misconfiguration: the request fails, the router is not marked down). */
  onRefused?: (routerUrl: string) => void;
}

/**
 * Split mode: ingress forwards the raw body to a router over a keep-alive pool and pipes the
 * router's bytes back unchanged. Several router URLs are used round-robin; a router that cannot
 * be reached (gone, draining) is skipped and the request goes to the next before any byte moved.
 */
export function createHttpForwarder(options: HttpForwarderOptions): HttpForwarder {
  const routers: RouterPool[] = options.urls.map((url) => ({
    url,
    // Uncapped: each open stream holds one connection to its router.
    pool: new Pool(url, { connections: options.connections ?? null, pipelining: 1, keepAliveTimeout: 30_000 }),
    downUntil: 0,
  }));
  let next = 0;
  const authorization = options.tokens === undefined ? undefined : internalAuthorization(options.tokens[0]);

  const handle: RouteHandler<ServerResponse> = async (request, response) => {
    const hop: Dispatcher.DispatchOptions = {
      path: ROUTER_PATH,
      method: 'POST',
      headers: hopHeaders(request, authorization),
      body: request.body,
      // The router enforces upstream timeouts itself; the hop only guards against a dead router.
      headersTimeout: 0,
      bodyTimeout: 0,
    };
    const count = routers.length;
    const start = next++ % count;
    const now = Date.now();
    let failed: RouterPool[] | undefined;
    // Made only when needed: an Error captures a stack, which cost ~5% of ingress CPU when it was made per request.
    let lastError: unknown;
    // Round-robin from the next router, each tried once: first those up when the request came,
    // then those marked down (skipping any this request has just marked).
    for (let pass = 0; pass < 2; pass++) {
      for (let index = 0; index < count; index++) {
        const router = routers[(start + index) % count] as RouterPool;
        if (pass === 0 ? router.downUntil > now : router.downUntil <= now || failed?.includes(router) === true) continue;
        try {
          await relayFrom(router.pool, hop, response, request.signal);
        } catch (error) {
          // Once the router has answered, its bytes are the client's: never try another router.
          const code = (error as { code?: string }).code;
          if (response.headersSent || request.signal.aborted || code === undefined || !RETRYABLE_CODES.has(code)) throw error;
          // A router that is gone or draining: skip it for a moment, let the next one take the request.
          router.downUntil = Date.now() + DOWN_FOR_MS;
          (failed ??= []).push(router);
          lastError = error;
          continue;
        }
        if ((response as RelayedResponse)[REFUSED] !== true) return;
        // Another router would most likely refuse too, and this one is up: fail this request
        // only, as the gateway's own fault, and leave the router in rotation.
        options.onRefused?.(router.url);
        throw new GatewayError('internal', 'Internal error: the gateway is misconfigured.', { code: 'internal_token_refused' });
      }
    }
    throw lastError ?? new Error('no router configured');
  };

  return {
    handle,
    async close() {
      await Promise.all(routers.map((router) => router.pool.close()));
    },
  };
}

interface RouterPool {
  url: string;
  pool: Pool;
  /** Until when (ms since epoch) the router is tried only after the others. */
  downUntil: number;
}

/** Headers the hop sets itself; a client header of the same name gives way to them. */
const OWN_HEADERS = new Set([ROUTE_HEADER, 'content-type', 'authorization']);

/**
 * The hop's request headers as a flat [name, value, …] list (what undici stores anyway): the
 * passed client headers, then identity, route and body type, then the query. Same precedence
 * as spreading them into one object in that order, without building and copying objects.
 */
function hopHeaders(request: RouteRequest, authorization: string | undefined): string[] {
  const identity = identityHeaders(request.identity, request.estimatedTokens, request.admittedAt);
  const query = hasKeys(request.query) ? new URLSearchParams(request.query).toString() : undefined;
  const headers: string[] = [];
  for (const name in request.headers) {
    const value = request.headers[name];
    if (value === undefined || OWN_HEADERS.has(name) || Object.hasOwn(identity, name) || (query !== undefined && name === QUERY_HEADER)) continue;
    headers.push(name, value);
  }
  for (const name in identity) headers.push(name, identity[name] as string);
  headers.push(ROUTE_HEADER, encodeRoute(request.route), 'content-type', HOP_CONTENT_TYPE);
  if (query !== undefined) headers.push(QUERY_HEADER, query);
  if (authorization !== undefined) headers.push('authorization', authorization);
  return headers;
}

function hasKeys(object: Record<string, string>): boolean {
  for (const _ in object) return true;
  return false;
}

/**
 * One attempt of the hop: the router's status and headers go to the client response, then its
 * bytes as they come. undici has parsed the headers into an object (lower-case names) whether
 * or not we ask for the raw list, so they are copied from it with setHeader: measured against
 * the raw list into writeHead(status, array), that is as cheap with no headers set before and
 * cheaper when admission has set its x-ratelimit-* headers (writeHead then removes and
 * re-appends every name), and the raw list costs a second Buffer-to-string conversion of every
 * header. Settles when the router's answer has ended (or failed); if the router dies
 * mid-answer the client response is left open, for ingress to end it with the format's error
 * event.
 */
function relayFrom(pool: Pool, hop: Dispatcher.DispatchOptions, response: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    pool.dispatch(hop, new Hop(response, signal, resolve, reject));
  });
}

/**
 * undici's dispatch handler for one hop, instead of its `stream()` API, whose handler keeps the
 * client response (its `opaque`) and the relay writable to the end. Under load, finished
 * hops' handlers stayed reachable through young-generation collections (not through full
 * ones), and with them every request's objects (client response, parsers, headers, admission
 * state) were promoted to old space: a third of what the ingress allocated survived each
 * scavenge (5% in `all`), and split's GC cost four times `all`'s per request
 * (docs/performance.md). This handler lets go of the response and its callbacks as soon as the
 * exchange is over, so whatever keeps a finished handler alive keeps nothing else.
 */
class Hop extends AbortableDispatch {
  #response: RelayedResponse | null;
  #resolve: (() => void) | null;
  #reject: ((error: Error) => void) | null;
  /** Bytes (and with them the head) have gone to the client. */
  #relayed = false;

  constructor(response: ServerResponse, signal: AbortSignal, resolve: () => void, reject: (error: Error) => void) {
    super(signal);
    this.#response = response;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    const response = this.#response;
    // 1xx (100-continue, early hints) only precede the answer.
    if (response === null || statusCode < 200) return;
    if (statusCode === 401 && headers[INTERNAL_AUTH_REFUSED_HEADER] !== undefined) {
      // Drained, so the connection stays usable, and kept from the client, whose key was fine:
      // the forwarder answers for it once the exchange is over.
      response[REFUSED] = true;
      this.#response = null;
      return;
    }
    for (const name in headers) {
      const value = headers[name];
      if (value !== undefined && !HOP_BY_HOP.has(name)) response.setHeader(name, value);
    }
    response.writeHead(statusCode);
    // An answer of known length goes out with its body in one write. So does a stream's head
    // when its first bytes came with it; otherwise it leaves a turn later, so the client sees it
    // before the first event as the router sent it.
    if (headers['content-length'] === undefined) setImmediate(flushHeadUnlessRelayed, this);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const response = this.#response;
    if (response === null) return;
    this.#relayed = true;
    // Whether the bytes so far end between two SSE events (a blank line).
    response[MID_EVENT] = chunk.length < 2 || chunk[chunk.length - 1] !== 0x0a || chunk[chunk.length - 2] !== 0x0a;
    if (!response.write(chunk)) {
      controller.pause();
      response.once('drain', () => controller.resume());
    }
  }

  onResponseEnd(): void {
    this.#response?.end();
    const resolve = this.#resolve;
    this.#release();
    resolve?.();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    const reject = this.#reject;
    this.#release();
    reject?.(error);
  }

  /** The head, flushed on its own when no bytes went out with it in the turn it was written. */
  flushHead(): void {
    const response = this.#response;
    if (response !== null && !this.#relayed && !response.writableEnded) response.flushHeaders();
  }

  #release(): void {
    this.unlisten();
    this.#response = null;
    this.#resolve = null;
    this.#reject = null;
  }
}

function flushHeadUnlessRelayed(hop: Hop): void {
  hop.flushHead();
}

/**
 * Set on the client response while the bytes relayed so far end inside an SSE event (not on a
 * blank line). A property rather than a WeakMap entry: it is written for every relayed chunk,
 * and a WeakMap set per chunk was 1–2% of ingress CPU.
 */
const MID_EVENT = Symbol('switchyard.relayMidEvent');

/** Set on the client response when the router refused the internal token: the refusal is the hop's, not the client's. */
const REFUSED = Symbol('switchyard.internalTokenRefused');

type RelayedResponse = ServerResponse & { [MID_EVENT]?: boolean; [REFUSED]?: boolean };

/**
 * After a router broke off mid-answer: closes a half-written SSE event with a blank line, so
 * the error event ingress writes next is an event of its own, never glued into another.
 */
export function closePartialEvent(response: ServerResponse): void {
  if (response.headersSent && !response.writableEnded && (response as RelayedResponse)[MID_EVENT] === true) response.write('\n\n');
}
