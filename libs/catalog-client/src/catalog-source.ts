import { Pool } from '@switchyard/http-client';
import { CatalogIndex } from './catalog-index.ts';
import { INTERNAL_TOKEN_ENV, internalAuthorization } from './internal-token.ts';
import type { CatalogSnapshot } from './snapshot.ts';

/** Where ingresses and routers read the catalog from: in process (`all`) or the catalog service. */
export interface CatalogSource {
  /** The newest snapshot; throws if none has been loaded yet (check `ready`). */
  current(): CatalogIndex;
  /** Resolves once a first snapshot is loaded. */
  ready(): Promise<void>;
  /** Whether a snapshot is loaded (readiness probes). */
  isReady(): boolean;
  close(): Promise<void>;
}

/** A catalog that changes only when told (`all` mode, tests). */
export function createStaticCatalog(snapshot: CatalogSnapshot): CatalogSource & { update(next: CatalogSnapshot): void } {
  let index = new CatalogIndex(snapshot);
  return {
    current: () => index,
    ready: async () => {},
    isReady: () => true,
    close: async () => {},
    update(next) {
      index = new CatalogIndex(next);
    },
  };
}

export const CATALOG_SNAPSHOT_PATH = '/internal/v1/catalog';

/** How long a long-poll asks the catalog to hold it by default: under common proxy idle timeouts. */
export const DEFAULT_LONG_POLL_MS = 25_000;

export interface HttpCatalogOptions {
  /** The catalog service's base URL. */
  url: string;
  /**
   * The plain poll's interval, and the pause after a failed request. Default 1000 ms. Against a
   * catalog that answers 304 at once (no long-polling), polls are spaced by it too.
   */
  pollMs?: number;
  /**
   * How long the catalog may hold a request until the version changes (long-polling): a change
   * arrives within milliseconds. Default 25 000 ms; 0 turns long-polling off (plain polls).
   */
  longPollMs?: number;
  /** SWITCHYARD_INTERNAL_TOKEN, sent as a bearer token; a catalog started with one refuses polls without it. */
  token?: string;
  onError?: (error: unknown) => void;
}

/**
 * Follows the catalog service. Each request sends the version it has; the catalog answers
 * with a newer snapshot, or holds the request until there is one (`waitMs`, long-polling) and
 * answers 304 if none came. So a revocation reaches every ingress and router within
 * milliseconds, and within `pollMs` even from a catalog that does not long-poll. A failed
 * request keeps the last good snapshot and is retried after `pollMs`.
 */
export function createHttpCatalog(options: HttpCatalogOptions): CatalogSource {
  const pollMs = options.pollMs ?? 1000;
  const longPollMs = options.longPollMs ?? DEFAULT_LONG_POLL_MS;
  const base = new URL(options.url);
  const snapshotPath = `${base.pathname.replace(/\/+$/, '')}${CATALOG_SNAPSHOT_PATH}`;
  const pool = new Pool(base.origin);
  const headers = options.token === undefined ? undefined : { authorization: internalAuthorization(options.token) };
  let index: CatalogIndex | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const abort = new AbortController();
  let resolveReady: () => void = () => {};
  const readyPromise = new Promise<void>((resolve) => {
    resolveReady = resolve;
  });

  async function poll(): Promise<void> {
    const started = Date.now();
    let delay = pollMs;
    try {
      const version = index?.version;
      // Nothing to wait for before the first snapshot: ask for it at once.
      const waitMs = version === undefined ? 0 : longPollMs;
      const query = `version=${version ?? -1}${waitMs > 0 ? `&waitMs=${waitMs}` : ''}`;
      const response = await pool.request({
        method: 'GET',
        path: `${snapshotPath}?${query}`,
        headersTimeout: waitMs + 5000,
        bodyTimeout: 10_000,
        signal: abort.signal,
        headers,
      });
      if (response.statusCode === 200) {
        const next = new CatalogIndex((await response.body.json()) as CatalogSnapshot);
        // A new version: ask again at once (the next request is held until the one after).
        if (next.version !== version) delay = 0;
        index = next;
        resolveReady();
      } else {
        await response.body.dump();
        if (response.statusCode === 304) {
          // A held request that ran its course: ask again at once. A 304 that came back early
          // (a catalog without long-polling, or one shutting down) waits out the poll interval.
          const elapsed = Date.now() - started;
          delay = waitMs > 0 && elapsed >= waitMs / 2 ? 0 : Math.max(0, pollMs - elapsed);
        } else if (response.statusCode === 401) {
          options.onError?.(new Error(`catalog answered 401: ${INTERNAL_TOKEN_ENV} is missing here or differs from the catalog's`));
        } else {
          options.onError?.(new Error(`catalog answered ${response.statusCode}`));
        }
      }
    } catch (error) {
      if (!stopped) options.onError?.(error);
    } finally {
      if (!stopped) {
        timer = setTimeout(() => void poll(), delay);
        timer.unref();
      }
    }
  }
  void poll();

  return {
    current() {
      if (index === undefined) throw new Error('catalog not loaded yet');
      return index;
    },
    ready: () => readyPromise,
    isReady: () => index !== undefined,
    async close() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      abort.abort();
      await pool.destroy();
    },
  };
}
