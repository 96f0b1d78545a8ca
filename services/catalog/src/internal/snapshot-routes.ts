import { CATALOG_SNAPSHOT_PATH, type CatalogSource } from '@switchyard/catalog-client';
import type { FastifyPluginAsync } from 'fastify';

/** The longest a long-poll is held, whatever the client asks: below common proxy idle timeouts. */
export const MAX_WAIT_MS = 55_000;

/** What the snapshot route serves from. */
export interface SnapshotFeed {
  /** The served snapshot: its version and its JSON text (serialized once per version). */
  latest(): { version: number; json: string };
  /** Resolves when the version differs from `version`, after `waitMs`, or when `signal` aborts. */
  waitForChange(version: number, waitMs: number, signal: AbortSignal): Promise<void>;
  /** Why this replica must not serve now, or undefined when it may. */
  unavailableReason(): string | undefined;
  /** Brings the snapshot up to date with the store (a client has seen a newer version elsewhere). */
  catchUp(): Promise<void>;
}

/**
 * `GET /internal/v1/catalog?version=N&waitMs=W`: the snapshot when its version differs from N;
 * otherwise the request is held until it does (200 with the new snapshot) or W ms pass (304).
 * Without waitMs it answers at once (the plain poll). Held requests are answered 304 as soon
 * as the server starts closing, so shutdown never waits for them.
 */
export function createSnapshotRoutes(feed: SnapshotFeed): FastifyPluginAsync {
  return async (app) => {
    const held = new Set<AbortController>();
    app.addHook('preClose', async () => {
      for (const controller of held) controller.abort();
    });

    app.get<{ Querystring: { version?: string; waitMs?: string } }>(CATALOG_SNAPSHOT_PATH, async (request, reply) => {
      const unavailable = feed.unavailableReason();
      if (unavailable !== undefined) {
        return reply.code(503).send({ error: { message: unavailable, type: 'unavailable_error', code: 'catalog_unavailable' } });
      }
      const known = parseNumber(request.query.version);
      const waitMs = Math.min(Math.max(parseNumber(request.query.waitMs) ?? 0, 0), MAX_WAIT_MS);
      // A client that has seen a newer version on another replica: this one is behind by at
      // most a notification in flight; catch up rather than hand out an older snapshot.
      if (known !== undefined && known > feed.latest().version) await feed.catchUp();
      if (known !== undefined && known === feed.latest().version && waitMs > 0) {
        const controller = new AbortController();
        held.add(controller);
        const abort = () => controller.abort();
        reply.raw.once('close', abort);
        try {
          await feed.waitForChange(known, waitMs, controller.signal);
        } finally {
          held.delete(controller);
          reply.raw.off('close', abort);
        }
      }
      const latest = feed.latest();
      if (known !== undefined && known === latest.version) return reply.code(304).send();
      return reply.type('application/json').header('cache-control', 'no-store').send(latest.json);
    });
  };
}

/** A feed over any CatalogSource (a static catalog): changes are noticed by checking every 100 ms. */
export function snapshotFeedFromSource(source: CatalogSource): SnapshotFeed {
  let cached: { index: unknown; version: number; json: string } | undefined;
  const latest = () => {
    const index = source.current();
    if (cached?.index !== index) cached = { index, version: index.version, json: JSON.stringify(index.snapshot) };
    return { version: cached.version, json: cached.json };
  };
  return {
    latest,
    async waitForChange(version, waitMs, signal) {
      const deadline = Date.now() + waitMs;
      while (!signal.aborted && Date.now() < deadline && latest().version === version) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(100, Math.max(0, deadline - Date.now()))));
      }
    },
    unavailableReason: () => (source.isReady() ? undefined : 'The catalog is not loaded yet.'),
    catchUp: async () => {},
  };
}

function parseNumber(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}
