import { GatewayError } from '@switchyard/canonical';
import { INTERNAL_AUTH_REFUSED_HEADER } from '@switchyard/catalog-client';
import type { ServerResponse } from 'node:http';
import { AbortableDispatch } from '@switchyard/providers/abortable-dispatch';
import { Pool } from '@switchyard/http-client';
import type { Dispatcher } from 'undici';
import { markRelayed, relayHead } from '../relay-to-client.ts';
import { encodeRoute, HOP_CONTENT_TYPE, identityHeaders, QUERY_HEADER, ROUTE_HEADER, ROUTER_PATH } from '../route-headers.ts';
import type { RouteRequest } from '../route-request.ts';

/**
 * The ingress → router exchange of the release before the hop: one HTTP call per request to the
 * router's ROUTER_PATH, over an undici keep-alive pool. The hop forwarder falls back to it where
 * an upgrade is answered but not taken: a router of that release (404, met during a rollout, so
 * that old routers and new ingresses run side by side), or a proxy between that passes only the
 * upgrades it knows (a service mesh's sidecar, 403). Made only when that happens.
 */
export class LegacyHttpRelay {
  readonly #pool: Pool;
  readonly #authorization: string | undefined;
  readonly #onRefused: () => void;

  constructor(url: string, authorization: string | undefined, onRefused: () => void) {
    // Uncapped: each open stream holds one connection to its router.
    this.#pool = new Pool(url, { connections: null, pipelining: 1, keepAliveTimeout: 30_000 });
    this.#authorization = authorization;
    this.#onRefused = onRefused;
  }

  /**
   * One attempt: the router's status and headers go to the client response, then its bytes as
   * they come. Settles when the router's answer has ended (or failed); if the router dies
   * mid-answer the client response is left open, for ingress to end it with the format's error
   * event.
   */
  async relay(request: RouteRequest, response: ServerResponse): Promise<void> {
    const hop: Dispatcher.DispatchOptions = {
      path: ROUTER_PATH,
      method: 'POST',
      headers: hopHeaders(request, this.#authorization),
      body: request.body,
      // The router enforces upstream timeouts itself; the hop only guards against a dead router.
      headersTimeout: 0,
      bodyTimeout: 0,
    };
    await new Promise<void>((resolve, reject) => {
      this.#pool.dispatch(hop, new Hop(response, request.signal, resolve, reject));
    });
    if ((response as RefusableResponse)[REFUSED] !== true) return;
    // Another router would most likely refuse too, and this one is up: fail this request only,
    // as the gateway's own fault, and leave the router in rotation.
    this.#onRefused();
    throw new GatewayError('internal', 'Internal error: the gateway is misconfigured.', { code: 'internal_token_refused' });
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
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
  #response: RefusableResponse | null;
  #resolve: (() => void) | null;
  #reject: ((error: Error) => void) | null;

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
    relayHead(response, statusCode, headers);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const response = this.#response;
    if (response === null) return;
    markRelayed(response, chunk);
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

  #release(): void {
    this.unlisten();
    this.#response = null;
    this.#resolve = null;
    this.#reject = null;
  }
}

/** Set on the client response when the router refused the internal token: the refusal is the hop's, not the client's. */
const REFUSED = Symbol('switchyard.internalTokenRefused');

type RefusableResponse = ServerResponse & { [REFUSED]?: boolean };
