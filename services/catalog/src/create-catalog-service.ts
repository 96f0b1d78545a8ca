import { CatalogIndex, type CatalogSource, type GeneratedKey } from '@switchyard/catalog-client';
import { ConfigError, loadConfig, type SwitchyardConfig } from '@switchyard/config';
import type { FastifyPluginAsync } from 'fastify';
import { createAdminPlugin } from './admin/admin-plugin.ts';
import { CatalogAdmin, type CatalogView } from './admin/catalog-admin.ts';
import { buildConfigCatalog, watchConfigFile, type ConfigCatalog } from './config-file.ts';
import { createSnapshotRoutes, type SnapshotFeed } from './internal/snapshot-routes.ts';
import { silentLogger, type CatalogLogger } from './logger.ts';
import { mergeSnapshot } from './merge-snapshot.ts';
import { createMemoryRuntimeStore } from './store/memory-runtime-store.ts';
import type { RuntimeState, RuntimeStore } from './store/runtime-store.ts';

export interface CatalogServiceOptions {
  /** The validated config; read from `configPath` when absent. */
  config?: SwitchyardConfig;
  /** The config file: watched for edits (unless `watchConfig: false`) and re-read by `reload()`. */
  configPath?: string;
  /** Redis for runtime changes, shared by catalog replicas. Absent: in this process (one instance, lost at restart). */
  redisUrl?: string;
  /** Bearer token of the admin API (SWITCHYARD_ADMIN_TOKEN). Absent or empty: the admin API answers 404. */
  adminToken?: string;
  logger?: CatalogLogger;
  /** More routes under /admin/v1, behind the same token and error format (e.g. usage). */
  adminRoutes?: FastifyPluginAsync[];
  /** Default true when `configPath` is given. */
  watchConfig?: boolean;
  /** Quiet time after a file event before the file is re-read. Default 200 ms. */
  watchDebounceMs?: number;
  /**
   * How often the store's version is checked, in case a change notification was lost (pub/sub
   * is fire-and-forget). Default 1000 ms: a change reaches every replica within that even then.
   */
  resyncMs?: number;
  /** For `${VAR}` in the config file on reload. Default process.env. */
  env?: Record<string, string | undefined>;
}

export interface ReloadResult {
  /** `applied`: the new file is served; `unchanged`: same content; `refused`: bad file or store down, the last good one is kept. */
  status: 'applied' | 'unchanged' | 'refused';
  /** The served version after the reload. */
  version: number;
  /** Why the file was refused, by field path. */
  problems?: string[];
  /** Keys minted for new `generate: true` entries (plaintext, to print once). */
  generatedKeys: GeneratedKey[];
}

export interface CatalogService {
  /** The live catalog in this process (`all` target): always the newest snapshot. */
  source: CatalogSource;
  /** Admin API (/admin/v1) and the snapshot route (/internal/v1/catalog): the catalog target. */
  plugin: FastifyPluginAsync;
  /** The admin API alone, for a public port (`all` target). */
  adminPlugin: FastifyPluginAsync;
  /** The snapshot route alone. Internal: the snapshot holds upstream credentials. */
  internalPlugin: FastifyPluginAsync;
  /** The admin operations without HTTP. */
  admin: CatalogAdmin;
  /** Keys minted at start for `generate: true` entries: plaintext, to print once, never log. */
  generatedKeys: GeneratedKey[];
  /** Whether this replica may serve: false while its config file differs from the one announced by another replica, or once closed. */
  isReady(): boolean;
  /** Re-reads the config file (SIGHUP). A bad file is refused and logged; the last good one stays. Never throws. */
  reload(): Promise<ReloadResult>;
  close(): Promise<void>;
}

interface ServedState {
  config: ConfigCatalog;
  runtime: RuntimeState;
  index: CatalogIndex;
  json: string;
  /** Another replica announced a different config file. */
  stale: boolean;
}

/**
 * The catalog: the config file's providers, models, tenants and keys, plus tenants and keys
 * created at runtime through the admin API (in Redis when given, shared by every replica).
 * Every change bumps one version; the merged snapshot is served in process (`source`), over
 * HTTP with long-polling (`internalPlugin`), and changed through the admin API (`adminPlugin`).
 */
export async function createCatalogService(options: CatalogServiceOptions): Promise<CatalogService> {
  const logger = options.logger ?? silentLogger;
  const env = options.env ?? process.env;
  const configPath = options.configPath;
  let initialConfig = options.config;
  if (initialConfig === undefined) {
    if (configPath === undefined) throw new Error('createCatalogService needs config or configPath');
    initialConfig = loadConfig(configPath, env);
  }
  let config = buildConfigCatalog(initialConfig);

  let storeHealthy = true;
  const storeFailed = (error: unknown) => {
    if (!storeHealthy) return;
    storeHealthy = false;
    logger.error({ err: error }, 'catalog store unreachable: serving the last snapshot, admin changes fail until it is back');
  };
  const store: RuntimeStore =
    options.redisUrl === undefined || options.redisUrl === ''
      ? createMemoryRuntimeStore()
      : // Imported only with Redis: a catalog without it does not load ioredis.
        await (await import('./store/redis-runtime-store.ts')).createRedisRuntimeStore({ url: options.redisUrl, onError: storeFailed });
  if (!store.shared) logger.info('catalog: in-memory store (no REDIS_URL): runtime changes are lost at restart; single instance only');

  /** One at a time: a reload's announce-and-swap never interleaves with a read of the store. */
  let chain: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(task: () => Promise<T>): Promise<T> => {
    const run = chain.then(task);
    chain = run.catch(() => {});
    return run;
  };

  const waiters = new Set<() => void>();
  let closed = false;
  let state!: ServedState;

  function serve(runtime: RuntimeState): void {
    const snapshot = mergeSnapshot(config.snapshot, runtime, runtime.version);
    const stale = runtime.configFingerprint !== undefined && runtime.configFingerprint !== config.fingerprint;
    const previous = state as ServedState | undefined;
    if (stale && previous?.stale !== true) {
      logger.warn('catalog: another replica announced a different config file; this one stops serving until its file matches');
    } else if (!stale && previous?.stale === true) {
      logger.info('catalog: config file matches the announced one again; serving');
    }
    const changed = previous === undefined || previous.index.version !== snapshot.version;
    state = { config, runtime, index: new CatalogIndex(snapshot), json: JSON.stringify(snapshot), stale };
    if (changed) for (const wake of [...waiters]) wake();
  }

  async function readAndServe(): Promise<void> {
    let runtime = await store.read();
    if (runtime.configFingerprint === undefined) {
      // The store lost its data (a Redis restarted without persistence): announce again, which
      // restarts the version from the clock, above every number handed out before.
      logger.warn('catalog store is empty: its runtime tenants and keys are gone; announcing the config again');
      await store.announceConfig(config.fingerprint);
      runtime = await store.read();
    }
    if (!storeHealthy) {
      storeHealthy = true;
      logger.info('catalog store reachable again');
    }
    // Never go back: a version is only ever replaced by a newer one, or rebuilt for a new config.
    if (runtime.version < state.runtime.version) return;
    if (runtime.version === state.runtime.version && state.config === config) return;
    serve(runtime);
  }

  let queuedRefresh: Promise<void> | undefined;
  /** Resolves once the served snapshot includes every change made before the call. */
  function refresh(): Promise<void> {
    queuedRefresh ??= exclusive(async () => {
      queuedRefresh = undefined;
      await readAndServe();
    });
    return queuedRefresh;
  }

  try {
    await store.announceConfig(config.fingerprint);
    serve(await store.read());
  } catch (error) {
    await store.close();
    throw error;
  }

  store.onChange((version) => {
    if (closed || (version !== undefined && version === state.index.version)) return;
    refresh().catch(storeFailed);
  });
  /** A reload that could not be announced (store down) is retried by the resync timer. */
  let retryReload = false;
  const resync = setInterval(() => {
    if (closed) return;
    store
      .readVersion()
      .then((version) => {
        if (retryReload) return reload().then(() => undefined);
        return version !== state.index.version || !storeHealthy ? refresh() : undefined;
      })
      .catch(storeFailed);
  }, options.resyncMs ?? 1_000);
  resync.unref();

  function reload(): Promise<ReloadResult> {
    return exclusive(async () => {
      const unchanged = (): ReloadResult => ({ status: 'unchanged', version: state.index.version, generatedKeys: [] });
      if (configPath === undefined || closed) return unchanged();
      let next: ConfigCatalog;
      try {
        next = buildConfigCatalog(loadConfig(configPath, env), config);
      } catch (error) {
        const problems = error instanceof ConfigError ? error.problems : [(error as Error).message];
        logger.error({ file: configPath, problems }, 'config reload refused: keeping the last good config');
        return { status: 'refused', version: state.index.version, problems, generatedKeys: [] };
      }
      if (next.fingerprint === config.fingerprint) return unchanged();
      try {
        // Always a new version: this replica's content changes even if another announced it first.
        await store.announceConfig(next.fingerprint, { force: true });
      } catch (error) {
        storeFailed(error);
        retryReload = true;
        logger.error({ file: configPath }, 'config reload postponed: the catalog store is unreachable; retrying once it answers');
        return { status: 'refused', version: state.index.version, problems: ['catalog store unreachable'], generatedKeys: [] };
      }
      retryReload = false;
      config = next;
      // Announced: served from the next successful read at the latest.
      await readAndServe().catch(storeFailed);
      logger.info({ file: configPath, version: state.index.version }, 'config reloaded');
      return { status: 'applied', version: state.index.version, generatedKeys: next.generatedKeys };
    });
  }

  const watcher =
    configPath !== undefined && options.watchConfig !== false
      ? watchConfigFile(configPath, () => void reload(), {
          debounceMs: options.watchDebounceMs ?? 200,
          onError: (error) => logger.warn({ err: error, file: configPath }, 'cannot watch the config file; reload with SIGHUP'),
        })
      : undefined;

  const admin = new CatalogAdmin({
    store,
    view: (): CatalogView => ({ config: state.config, runtime: state.runtime, index: state.index }),
    refresh,
    logger,
  });

  const feed: SnapshotFeed = {
    latest: () => ({ version: state.index.version, json: state.json }),
    async waitForChange(version, waitMs, signal) {
      if (closed || signal.aborted || state.index.version !== version) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, waitMs);
        waiters.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    },
    unavailableReason() {
      if (closed) return 'The catalog is shutting down.';
      if (state.stale) return "This catalog replica's config file differs from the one announced by another replica.";
      return undefined;
    },
    catchUp: () => refresh().catch(storeFailed),
  };

  const adminPlugin = createAdminPlugin({ admin, token: options.adminToken, logger, ...(options.adminRoutes && { routes: options.adminRoutes }) });
  const internalPlugin = createSnapshotRoutes(feed);

  return {
    source: {
      current: () => state.index,
      ready: async () => {},
      isReady: () => !closed,
      close: async () => {},
    },
    plugin: async (app) => {
      await app.register(adminPlugin);
      await app.register(internalPlugin);
    },
    adminPlugin,
    internalPlugin,
    admin,
    generatedKeys: config.generatedKeys,
    isReady: () => !closed && !state.stale,
    reload,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(resync);
      watcher?.close();
      for (const wake of [...waiters]) wake();
      await chain;
      await store.close();
    },
  };
}
