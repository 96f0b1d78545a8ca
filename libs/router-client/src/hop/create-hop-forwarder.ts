import type { ServerResponse } from 'node:http';
import { internalAuthorization, type InternalTokens } from '@switchyard/catalog-client';
import type { RouteHandler, RouteRequest } from '../route-request.ts';
import { HopConnection } from './hop-connection.ts';
import { LegacyHttpRelay } from './legacy-http-relay.ts';

export interface HopForwarder {
  handle: RouteHandler<ServerResponse>;
  /** Hop connections open or opening now, retired ones that still carry streams included. */
  readonly connections: number;
  close(): Promise<void>;
}

/** Failures that happen before a router answered anything: another router can take the request. */
const RETRYABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** How long a router that refused a connection is skipped. */
const DOWN_FOR_MS = 2000;

/** How long a router URL whose upgrade was answered but not taken (an older router, a proxy that refuses it) is sent route calls instead. */
const LEGACY_FOR_MS = 30_000;

export interface HopForwarderOptions {
  urls: string[];
  /**
   * Hop connections kept to each router URL (SWITCHYARD_ROUTER_CONNECTIONS). Behind one Service
   * address each connection lands on one router pod, so this, times the ingress replicas, is
   * how many router pods one ingress's traffic can spread over at a time.
   */
  connections?: number;
  /**
   * A connection older than this takes no new streams and is replaced, so that connections made
   * through a Service move as router pods come and go (docs/architecture.md, "The hop").
   */
  maxConnectionAgeMs?: number;
  /** How long a router may take to answer a new connection's upgrade before it is taken as down (10 s). */
  connectTimeoutMs?: number;
  /**
   * SWITCHYARD_INTERNAL_TOKEN: the first is sent on every hop connection (the others are only
   * what this process accepts); routers started with tokens refuse hops without one of theirs.
   */
  tokens?: InternalTokens;
  /** A router refused the token (a misconfiguration: its requests fail, the router is not marked down). */
  onRefused?: (routerUrl: string) => void;
  /** A request went to a router of the release before the hop as a route call. */
  onRouteCall?: () => void;
}

interface RouterHops {
  /** As configured: what onRefused names. */
  name: string;
  url: URL;
  connections: Array<HopConnection | undefined>;
  turn: number;
  /** Until when (ms since epoch) the router is tried only after the others. */
  downUntil: number;
  /** Until when (ms since epoch) requests go to this URL as route calls (LegacyHttpRelay). */
  legacyUntil: number;
  legacy: LegacyHttpRelay | undefined;
}

/**
 * Split mode: ingress sends each request to a router over a few long-lived hop connections
 * (hop-connection.ts), many requests at once on each, and relays the router's answer to the
 * client as it comes. Several router URLs are used round-robin; a router that cannot be reached
 * (gone, draining) is skipped and the request goes to the next before any byte moved.
 */
export function createHopForwarder(options: HopForwarderOptions): HopForwarder {
  const perRouter = Math.max(1, options.connections ?? 4);
  const maxAge = options.maxConnectionAgeMs ?? 60_000;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const authorization = options.tokens === undefined ? undefined : internalAuthorization(options.tokens[0]);
  const routers: RouterHops[] = options.urls.map((url) => ({ name: url, url: new URL(url), connections: new Array(perRouter), turn: 0, downUntil: 0, legacyUntil: 0, legacy: undefined }));
  let next = 0;
  const open = new Set<HopConnection>();

  const connectionTo = (router: RouterHops, now: number): HopConnection => {
    const slot = router.turn++ % perRouter;
    const current = router.connections[slot];
    if (current !== undefined && current.accepting && now - current.openedAt < maxAge) return current;
    current?.retire();
    const connection = new HopConnection({
      url: router.url,
      connectTimeoutMs,
      authorization,
      onRefused: () => options.onRefused?.(router.name),
      onUnsupported: () => (router.legacyUntil = Date.now() + LEGACY_FOR_MS),
    });
    router.connections[slot] = connection;
    open.add(connection);
    void connection.closed.then(() => open.delete(connection));
    return connection;
  };

  const relayAsRouteCall = (router: RouterHops, request: RouteRequest, response: ServerResponse): Promise<void> => {
    options.onRouteCall?.();
    return (router.legacy ??= new LegacyHttpRelay(router.name, authorization, () => options.onRefused?.(router.name))).relay(request, response);
  };

  /**
   * One attempt at one router: over a hop connection, or as a route call where the hop cannot
   * be had: a router of the release before it (old and new run side by side during a rollout), or
   * a proxy on the way that refuses the upgrade (a service mesh's sidecar). A request sent on a
   * connection refused so goes the old way at once.
   */
  const exchange = async (router: RouterHops, request: RouteRequest, response: ServerResponse, now: number): Promise<void> => {
    if (router.legacyUntil > now) return relayAsRouteCall(router, request, response);
    try {
      await connectionTo(router, now).exchange(request, response);
    } catch (error) {
      if (router.legacyUntil > Date.now() && !response.headersSent && !request.signal.aborted) return relayAsRouteCall(router, request, response);
      throw error;
    }
  };

  const handle: RouteHandler<ServerResponse> = async (request, response) => {
    const count = routers.length;
    const start = next++ % count;
    const now = Date.now();
    let failed: RouterHops[] | undefined;
    let lastError: unknown;
    // Round-robin from the next router, each tried once: first those up when the request came,
    // then those marked down (skipping any this request has just marked).
    for (let pass = 0; pass < 2; pass++) {
      for (let index = 0; index < count; index++) {
        const router = routers[(start + index) % count] as RouterHops;
        if (pass === 0 ? router.downUntil > now : router.downUntil <= now || failed?.includes(router) === true) continue;
        try {
          await exchange(router, request, response, now);
          return;
        } catch (error) {
          // Once the router has answered, its bytes are the client's: never try another router.
          const code = (error as { code?: string }).code;
          if (response.headersSent || request.signal.aborted || code === undefined || !RETRYABLE_CODES.has(code)) throw error;
          // A router that is gone or draining: skip it for a moment, let the next one take the request.
          router.downUntil = Date.now() + DOWN_FOR_MS;
          (failed ??= []).push(router);
          lastError = error;
        }
      }
    }
    throw lastError ?? new Error('no router configured');
  };

  return {
    handle,
    get connections() {
      return open.size;
    },
    /** Once every answer in progress has ended: each connection closes when its last stream ends. */
    async close() {
      const closing: Array<Promise<void>> = [];
      for (const router of routers) {
        if (router.legacy !== undefined) closing.push(router.legacy.close());
        for (const connection of router.connections) {
          if (connection === undefined) continue;
          connection.retire();
          closing.push(connection.closed);
        }
      }
      await Promise.all(closing);
    },
  };
}
