// Each target imports its services inside its start function (`await import()`), so a process
// loads only what it runs: `switchyard catalog`, `ingress`, `worker` and `simulator` never load
// @switchyard/router and its dependencies (issue 8, docs/performance.md item 2). Type-only
// imports are erased and cost nothing at run time.
import type { CatalogService } from '@switchyard/catalog';
import type { CatalogSource, GeneratedKey, InternalRefusal, InternalTokens } from '@switchyard/catalog-client';
import { loadConfig, type SwitchyardConfig } from '@switchyard/config';
import type { Limiter } from '@switchyard/ratelimit';
import type { ResponseStore, Router, SignatureStore } from '@switchyard/router';
import { createLogger, Metrics, registerOpsRoutes, startTracing, type Logger, type Tracer } from '@switchyard/telemetry';
import type { UsageAggregator, UsageSink } from '@switchyard/usage-events';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { startIdleHeapTrim } from './idle-heap-trim.ts';
import type { CliOptions } from './parse-arguments.ts';

/** A started target: what SIGTERM needs to drain it. */
export interface Running {
  /** Stop accepting, let in-flight requests finish, release resources. */
  close(): Promise<void>;
  /** Flip readiness to false at once (the first step of a drain). */
  drain(): void;
  /** The grace period is over: end what is still open, each stream with its format's error event. */
  terminate(): void;
  /** SIGHUP: re-read the config file (catalog and all). */
  reload?(): void;
}

const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024;

export async function startTarget(options: CliOptions, env: Record<string, string | undefined>): Promise<Running> {
  const trimAfterMs = idleTrimAfterMs(env);
  const logger = createLogger({ name: options.target });
  // Only the OTEL_* variables turn tracing on; off, the tracer is the API's no-op.
  const tracing = await startTracing({ serviceName: `switchyard-${options.target}`, logger });
  const running = await startTargetWith(options, env, logger, tracing.tracer);
  const trim = startIdleHeapTrim({ afterMs: trimAfterMs, logger });
  return {
    ...running,
    close: async () => {
      trim.stop();
      await running.close();
      await tracing.shutdown();
    },
  };
}

async function startTargetWith(options: CliOptions, env: Record<string, string | undefined>, logger: Logger, tracer: Tracer): Promise<Running> {
  switch (options.target) {
    case 'all':
      return startAll(options, env, logger, tracer);
    case 'ingress':
      return startIngress(options, env, logger, tracer);
    case 'router':
      return startRouter(options, env, logger, tracer);
    case 'catalog':
      return startCatalog(options, env, logger);
    case 'simulator': {
      const { startSimulator } = await import('@switchyard/providers');
      const simulator = await startSimulator({ port: options.port, host: options.host });
      logger.info({ url: simulator.url }, 'simulator listening');
      return { close: () => simulator.close(), drain: () => {}, terminate: () => {} };
    }
    case 'worker':
      return startUsageWorker(options, env, logger);
  }
}

/** How long a process is idle after a busy spell before it trims its heap; `SWITCHYARD_IDLE_TRIM_AFTER_MS=0` turns it off. */
function idleTrimAfterMs(env: Record<string, string | undefined>): number {
  const text = env.SWITCHYARD_IDLE_TRIM_AFTER_MS;
  if (text === undefined || text === '') return 300_000;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) throw new Error(`SWITCHYARD_IDLE_TRIM_AFTER_MS must be a number of milliseconds ≥ 0, not '${text}'.`);
  return value;
}

/** SWITCHYARD_ROUTER_CONNECTIONS: hop connections an ingress keeps to each router URL (the forwarder's default when unset). */
function routerConnectionsFrom(env: Record<string, string | undefined>): { connections?: number } {
  const text = env.SWITCHYARD_ROUTER_CONNECTIONS;
  if (text === undefined || text === '') return {};
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`SWITCHYARD_ROUTER_CONNECTIONS must be a whole number ≥ 1, not '${text}'.`);
  return { connections: value };
}

function requireConfig(options: CliOptions): SwitchyardConfig {
  if (options.config === undefined) throw new Error(`switchyard ${options.target} needs --config FILE (or SWITCHYARD_CONFIG).`);
  return loadConfig(options.config);
}

function requireEnv(env: Record<string, string | undefined>, name: string): string {
  const value = env[name];
  if (value === undefined || value === '') throw new Error(`${name} is required for this target.`);
  return value;
}

/** Starts the built-in simulator in process when a provider needs it. */
async function simulatorFor(catalog: CatalogSource): Promise<{ url: string; close(): Promise<void> } | undefined> {
  const providers = Object.values(catalog.current().snapshot.providers);
  if (!providers.some((provider) => provider.protocol === 'simulator')) return undefined;
  const { startSimulator } = await import('@switchyard/providers');
  return startSimulator({ port: 0, host: '127.0.0.1' });
}

/** REDIS_URL when it names a server; unset and empty both mean in-memory stores. */
function redisUrlOf(env: Record<string, string | undefined>): string | undefined {
  const url = env.REDIS_URL;
  return url === undefined || url === '' ? undefined : url;
}

/** Responses state and tool-call signatures in Redis when there is one, else in this process (single instance). */
async function conversationStoresFor(env: Record<string, string | undefined>): Promise<{ responseStore: ResponseStore; signatureStore: SignatureStore }> {
  const url = redisUrlOf(env);
  if (url === undefined) {
    const { createMemoryResponseStore, createMemorySignatureStore } = await import('@switchyard/router');
    return { responseStore: createMemoryResponseStore(), signatureStore: createMemorySignatureStore() };
  }
  const { createRedisResponseStore, createRedisSignatureStore } = await import('@switchyard/router/redis');
  return { responseStore: createRedisResponseStore({ url }), signatureStore: createRedisSignatureStore({ url }) };
}

/**
 * The limiter: Redis-backed and exact across replicas when REDIS_URL is set, else in process.
 * Store outages follow the catalog's onStoreFailure policy and show in metrics and logs.
 */
async function limiterFor(env: Record<string, string | undefined>, catalog: CatalogSource, metrics: Metrics, logger: Logger): Promise<Limiter> {
  const url = redisUrlOf(env);
  if (url === undefined) return (await import('@switchyard/ratelimit')).createMemoryLimiter();
  const { createRedisLimiter } = await import('@switchyard/ratelimit/redis');
  const limiter = createRedisLimiter({
    url,
    onStoreFailure: catalog.current().snapshot.limits.onStoreFailure,
    onDegraded: (degraded, error) => {
      metrics.limiterDegraded.set(degraded ? 1 : 0);
      if (degraded) logger.error({ err: error }, 'rate-limit store unreachable: onStoreFailure policy in force');
      else logger.info('rate-limit store reachable again');
    },
  });
  // Not ready before the first connection (bounded): a replica's first requests would otherwise
  // all be admitted by its own per-process window, past the shared limit.
  await limiter.ready();
  return limiter;
}

/**
 * Where usage events go. A router with Redis stages them there, for workers to move into the
 * queue and aggregate. `all` records them in its own aggregator: in Redis, or in memory without
 * it. Never blocks a request.
 */
async function usageSinkFor(
  env: Record<string, string | undefined>,
  metrics: Metrics,
  logger: Logger,
  aggregator: UsageAggregator | undefined,
): Promise<UsageSink | undefined> {
  const redisUrl = redisUrlOf(env);
  const onError = (error: unknown) => logger.warn({ err: error }, 'usage pipeline error');
  const onDrop = (count: number, reason: string) => {
    metrics.usageEventsDropped.inc({ reason }, count);
    logger.error({ count, reason }, 'usage events dropped');
  };
  if (aggregator !== undefined) {
    const { createMemoryUsageSink, createRecordingUsageSink } = await import('@switchyard/usage-events');
    return redisUrl === undefined ? createMemoryUsageSink(aggregator, { onError, onDrop }) : createRecordingUsageSink(aggregator, { onError, onDrop });
  }
  if (redisUrl !== undefined) return (await import('@switchyard/usage-events/redis')).createRedisUsageSink({ redisUrl, onError, onDrop });
  logger.warn('no REDIS_URL: usage events are not recorded by this router');
  return undefined;
}

/** What a target holds open; closed in reverse order, so the listener stops before what it uses. */
class Resources {
  readonly #closers: Array<() => Promise<unknown>> = [];

  add<T extends { close(): Promise<unknown> }>(resource: T): T {
    this.#closers.push(() => resource.close());
    return resource;
  }

  async close(): Promise<void> {
    for (const close of this.#closers.reverse()) await close();
  }
}

/** Listens, and returns the Running whose readiness drops at once on drain. */
async function serve(
  app: FastifyInstance,
  resources: Resources,
  options: CliOptions,
  logger: Logger,
  setDraining: () => void,
  terminate: () => void = () => {},
): Promise<Running> {
  resources.add(app);
  const idle = trackIdleSockets(app);
  const address = await app.listen({ port: options.port, host: options.host });
  logger.info({ address }, `${options.target} listening`);
  return {
    drain: setDraining,
    terminate,
    close: async () => {
      // A connection busy with a stream when the drain began is idle once it ends; close it
      // then instead of waiting for the client's keep-alive timeout.
      // Node counts a connection that never sent a request as busy; those are closed too.
      const sweep = setInterval(() => {
        app.server.closeIdleConnections();
        idle.destroyUnused();
      }, 100);
      try {
        await resources.close();
      } finally {
        clearInterval(sweep);
      }
    },
  };
}

/**
 * Connections with no request in progress, which a drain may close: Node's own
 * closeIdleConnections misses sockets that were opened but never sent a request (health
 * checks, pre-opened client pools), and the drain would then wait its whole grace period.
 */
function trackIdleSockets(app: FastifyInstance): { destroyUnused(): void } {
  const active = new Map<Socket, number>();
  app.server.on('connection', (socket: Socket) => {
    active.set(socket, 0);
    socket.once('close', () => active.delete(socket));
  });
  // An upgraded connection (a router's hop) is its protocol's to close, when its streams have ended.
  app.server.on('upgrade', (_request: IncomingMessage, socket: Socket) => active.delete(socket));
  app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    active.set(socket, (active.get(socket) ?? 0) + 1);
    response.once('close', () => {
      if (active.has(socket)) active.set(socket, Math.max(0, (active.get(socket) ?? 1) - 1));
    });
  });
  return {
    destroyUnused() {
      for (const [socket, requests] of active) if (requests === 0) socket.destroy();
    },
  };
}

/**
 * SWITCHYARD_INTERNAL_TOKEN of a split-mode process (a list while it is rotated). Unset still
 * works (setups from before the token), but the internal hops then rest on the network alone,
 * which is said once at start.
 */
async function internalTokensFor(env: Record<string, string | undefined>, logger: Logger): Promise<InternalTokens | undefined> {
  const { parseInternalTokens } = await import('@switchyard/catalog-client');
  const tokens = parseInternalTokens(env.SWITCHYARD_INTERNAL_TOKEN);
  if (tokens !== undefined) return tokens;
  logger.warn('SWITCHYARD_INTERNAL_TOKEN is not set: internal hops (catalog snapshot, ingress to router) are unauthenticated; whoever reaches an internal port is trusted');
  return undefined;
}

/** Refused internal calls, for the log (the hook reports at most once a minute, never what was sent). */
function logInternalRefusal(logger: Logger): (refusal: InternalRefusal) => void {
  return (refusal) => logger.warn(refusal, 'internal call refused: missing or wrong SWITCHYARD_INTERNAL_TOKEN');
}

/** The catalog service as ingresses and routers see it in split mode: polled over HTTP. */
async function remoteCatalog(env: Record<string, string | undefined>, logger: Logger, resources: Resources, tokens: InternalTokens | undefined): Promise<CatalogSource> {
  const { createHttpCatalog } = await import('@switchyard/catalog-client');
  const catalog = resources.add(
    createHttpCatalog({
      url: requireEnv(env, 'SWITCHYARD_CATALOG_URL'),
      ...(tokens === undefined ? {} : { token: tokens[0] }),
      onError: (error) => logger.warn({ err: error }, 'catalog poll failed'),
    }),
  );
  await catalog.ready();
  return catalog;
}

/** The router and what it needs: the simulator when a provider uses it, the limiter, Responses state. */
async function routerCore(
  env: Record<string, string | undefined>,
  catalog: CatalogSource,
  metrics: Metrics,
  logger: Logger,
  resources: Resources,
  usageSink: UsageSink | undefined,
  tracer: Tracer,
  keepAliveMs?: number,
): Promise<{ router: Router; limiter: Limiter }> {
  const simulator = await simulatorFor(catalog);
  if (simulator !== undefined) resources.add(simulator);
  const limiter = resources.add(await limiterFor(env, catalog, metrics, logger));
  if (usageSink !== undefined) resources.add(usageSink);
  const { createRouter } = await import('@switchyard/router');
  const conversationStores = await conversationStoresFor(env);
  const router = resources.add(
    createRouter({
      catalog,
      metrics,
      logger,
      limiter,
      tracer,
      ...(usageSink === undefined ? {} : { usageSink }),
      ...conversationStores,
      ...(keepAliveMs === undefined ? {} : { keepAliveMs }),
      ...(simulator === undefined ? {} : { simulatorUrl: simulator.url }),
    }),
  );
  return { router, limiter };
}

async function startAll(options: CliOptions, env: Record<string, string | undefined>, logger: Logger, tracer: Tracer): Promise<Running> {
  const config = requireConfig(options);
  const { buildIngress } = await import('@switchyard/ingress');
  const metrics = new Metrics();
  const resources = new Resources();
  const redisUrl = redisUrlOf(env);
  // BullMQ and ioredis are loaded only with Redis: without, they would be 21 MB for nothing.
  const aggregator = resources.add(
    redisUrl !== undefined
      ? (await import('@switchyard/usage-events/redis')).createRedisUsageAggregator({ url: redisUrl })
      : (await import('@switchyard/usage-events')).createMemoryUsageAggregator(),
  );
  const service = resources.add(await catalogServiceFor(options, env, logger, config, aggregator));
  const catalog = service.source;
  // With Redis, `all` also runs the worker, for what routers of a split deployment sharing the
  // Redis stage: its own usage goes straight to the aggregator (usageSinkFor).
  if (redisUrl !== undefined) {
    const { startWorker } = await import('@switchyard/worker');
    resources.add(startWorker({ redisUrl, aggregator, prices: () => undefined, logger }));
  }
  const usageSink = await usageSinkFor(env, metrics, logger, aggregator);
  const { router, limiter } = await routerCore(env, catalog, metrics, logger, resources, usageSink, tracer, config.server.streamKeepAliveMs);
  let draining = false;
  const app = buildIngress({
    catalog,
    forward: router.handle,
    metrics,
    logger,
    limiter,
    tracer,
    bodyLimit: config.server.bodyLimitBytes,
    isReady: () => !draining && service.isReady(),
  });
  // Only the admin API joins the public port: the internal snapshot holds upstream keys.
  await app.register(service.adminPlugin);
  const running = await serve(app, resources, options, logger, () => (draining = true), router.terminateStreams);
  if (redisUrlOf(env) === undefined) logger.info('in-memory stores (no REDIS_URL): single instance only');
  printGeneratedKeys(service.generatedKeys);
  return { ...running, reload: () => void reloadCatalog(service, logger, true) };
}

/** Demo keys are printed once, to the terminal, never logged. */
function printGeneratedKeys(keys: GeneratedKey[]): void {
  for (const generated of keys) process.stdout.write(`\nDemo API key for tenant '${generated.tenantId}': ${generated.key}\n\n`);
}

async function reloadCatalog(service: CatalogService, logger: Logger, printKeys: boolean): Promise<void> {
  const result = await service.reload();
  logger.info({ status: result.status, version: result.version, problems: result.problems }, 'config reload');
  if (printKeys) printGeneratedKeys(result.generatedKeys);
}

/** `GET /admin/v1/usage?tenant=&from=&to=&groupBy=`, behind the admin token like the rest of the admin API. */
async function usageAdminRoutes(aggregator: UsageAggregator): Promise<FastifyPluginAsync> {
  const { queryUsage } = await import('@switchyard/worker/query');
  return async (app) => {
    app.get('/usage', async (request) => queryUsage(aggregator, request.query));
  };
}

/** The catalog: the config file plus runtime changes (Redis when there is one), with the admin API. */
async function catalogServiceFor(
  options: CliOptions,
  env: Record<string, string | undefined>,
  logger: Logger,
  config: SwitchyardConfig,
  aggregator: UsageAggregator | undefined,
): Promise<CatalogService> {
  const { createCatalogService } = await import('@switchyard/catalog');
  return createCatalogService({
    config,
    ...(options.config === undefined ? {} : { configPath: options.config }),
    ...(env.REDIS_URL === undefined ? {} : { redisUrl: env.REDIS_URL }),
    ...(env.SWITCHYARD_ADMIN_TOKEN === undefined ? {} : { adminToken: env.SWITCHYARD_ADMIN_TOKEN }),
    logger,
    adminRoutes: aggregator === undefined ? [] : [await usageAdminRoutes(aggregator)],
  });
}

async function startIngress(options: CliOptions, env: Record<string, string | undefined>, logger: Logger, tracer: Tracer): Promise<Running> {
  const [{ buildIngress, ForwardedRequests }, { createHopForwarder }] = await Promise.all([
    import('@switchyard/ingress'),
    import('@switchyard/router-client'),
  ]);
  const resources = new Resources();
  const metrics = new Metrics();
  const tokens = await internalTokensFor(env, logger);
  const catalog = await remoteCatalog(env, logger, resources, tokens);
  const forwarder = resources.add(
    createHopForwarder({
      urls: requireEnv(env, 'SWITCHYARD_ROUTER_URL').split(','),
      ...routerConnectionsFrom(env),
      ...(tokens === undefined ? {} : { tokens }),
      onRefused: (router) => logger.error({ router }, 'router refused this ingress: SWITCHYARD_INTERNAL_TOKEN is missing here or differs from the router\'s'),
      onRouteCall: () => metrics.hopRouteCalls.inc(),
    }),
  );
  metrics.countHopConnections(() => forwarder.connections);
  const limiter = resources.add(await limiterFor(env, catalog, metrics, logger));
  const forwarded = new ForwardedRequests();
  let draining = false;
  const app = buildIngress({
    catalog,
    forwarded,
    forward: forwarder.handle,
    metrics,
    logger,
    limiter,
    tracer,
    bodyLimit: DEFAULT_BODY_LIMIT,
    isReady: () => !draining && catalog.isReady(),
  });
  return serve(app, resources, options, logger, () => (draining = true), () => forwarded.terminateAll());
}

async function startRouter(options: CliOptions, env: Record<string, string | undefined>, logger: Logger, tracer: Tracer): Promise<Running> {
  const { buildRouterApp } = await import('@switchyard/router');
  const resources = new Resources();
  const metrics = new Metrics();
  const tokens = await internalTokensFor(env, logger);
  const catalog = await remoteCatalog(env, logger, resources, tokens);
  const usageSink = await usageSinkFor(env, metrics, logger, undefined);
  const { router } = await routerCore(env, catalog, metrics, logger, resources, usageSink, tracer);
  let draining = false;
  const app = buildRouterApp({
    router,
    metrics,
    isReady: () => !draining && catalog.isReady(),
    bodyLimit: DEFAULT_BODY_LIMIT,
    ...(tokens === undefined ? {} : { internalTokens: tokens }),
    onInternalRefused: logInternalRefusal(logger),
  });
  return serve(app, resources, options, logger, () => (draining = true), router.terminateStreams);
}

/**
 * The usage worker: moves staged usage into the BullMQ queue and consumes it into the Redis
 * aggregates. Events arrive priced by the routers (they hold the catalog), so the worker needs
 * only Redis. Serves the ops routes.
 */
async function startUsageWorker(options: CliOptions, env: Record<string, string | undefined>, logger: Logger): Promise<Running> {
  const redisUrl = requireEnv(env, 'REDIS_URL');
  const [{ startWorker }, { default: Fastify }] = await Promise.all([import('@switchyard/worker'), import('fastify')]);
  const resources = new Resources();
  const worker = resources.add(startWorker({ redisUrl, prices: () => undefined, logger }));
  await worker.waitUntilReady();
  const metrics = new Metrics();
  // The backlog is what its alert watches; a few Redis calls every 5 s.
  const sample = setInterval(() => {
    worker.backlog().then(
      (batches) => metrics.usageQueueDepth.set(batches),
      (error: unknown) => logger.warn({ err: error }, 'usage queue depth unavailable'),
    );
  }, 5000);
  sample.unref();
  resources.add({ close: async () => clearInterval(sample) });
  let draining = false;
  const app = Fastify({ logger: false });
  registerOpsRoutes(app, { metrics, isReady: () => !draining });
  return serve(app, resources, options, logger, () => (draining = true));
}

async function startCatalog(options: CliOptions, env: Record<string, string | undefined>, logger: Logger): Promise<Running> {
  const config = requireConfig(options);
  const { buildCatalogApp } = await import('@switchyard/catalog');
  const tokens = await internalTokensFor(env, logger);
  const resources = new Resources();
  const redisUrl = redisUrlOf(env);
  const aggregator =
    redisUrl === undefined
      ? undefined
      : resources.add((await import('@switchyard/usage-events/redis')).createRedisUsageAggregator({ url: redisUrl }));
  const service = resources.add(await catalogServiceFor(options, env, logger, config, aggregator));
  if (service.generatedKeys.length > 0) {
    await resources.close();
    throw new Error('generate: true keys are for the single-process demo only; give split-mode keys as key or sha256.');
  }
  const app = buildCatalogApp({
    service,
    metrics: new Metrics(),
    ...(tokens === undefined ? {} : { internalTokens: tokens }),
    onInternalRefused: logInternalRefusal(logger),
  });
  const running = await serve(app, resources, options, logger, () => {});
  return { ...running, reload: () => void reloadCatalog(service, logger, false) };
}
