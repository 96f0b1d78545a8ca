import { request } from 'undici';
import { CatalogIndex } from './catalog-index.ts';
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

/**
 * Polls the catalog service. A poll sends the version it has; the catalog answers 304 when
 * nothing changed, so a poll every second costs a few hundred bytes and keeps revocations
 * visible within the 2 s the design promises. A failed poll keeps the last good snapshot.
 */
export function createHttpCatalog(options: { url: string; pollMs?: number; onError?: (error: unknown) => void }): CatalogSource {
  const pollMs = options.pollMs ?? 1000;
  let index: CatalogIndex | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let resolveReady: () => void = () => {};
  const readyPromise = new Promise<void>((resolve) => {
    resolveReady = resolve;
  });

  async function poll(): Promise<void> {
    try {
      const version = index?.version ?? -1;
      const response = await request(`${options.url}${CATALOG_SNAPSHOT_PATH}?version=${version}`, {
        headersTimeout: 5000,
        bodyTimeout: 5000,
      });
      if (response.statusCode === 200) {
        index = new CatalogIndex((await response.body.json()) as CatalogSnapshot);
        resolveReady();
      } else {
        await response.body.dump();
      }
    } catch (error) {
      options.onError?.(error);
    } finally {
      if (!stopped) {
        timer = setTimeout(() => void poll(), pollMs);
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
    },
  };
}
