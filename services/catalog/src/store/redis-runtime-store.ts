import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { defineCatalogCommands } from './commands.ts';
import { CATALOG_CHANGES_CHANNEL, CATALOG_KEYS, keyField, tenantField, tenantKeysPrefix } from './keys.ts';
import { StoreRejection, type RuntimeState, type StoreRejectionReason, type RuntimeStore, type StoredKey, type StoredTenant } from './runtime-store.ts';

export interface RedisRuntimeStoreOptions {
  url: string;
  /** Bound on every Redis call. Default 2 s: admin calls, not the hot path. */
  timeoutMs?: number;
  /** How long the first connection may take before start fails. Default 10 s. */
  connectTimeoutMs?: number;
  /** Connection errors (the store keeps reconnecting on its own). */
  onError?: (error: unknown) => void;
}

/** Compare-and-set rounds before an update gives up under contention (other replicas' updates). */
const MAX_CAS_ATTEMPTS = 20;

/**
 * Runtime changes in Redis, shared by every catalog replica (key scheme in keys.ts). Each
 * change is one script that checks, writes, bumps the version and publishes it; reads are one
 * MULTI, so a replica always sees a version with exactly the state it names.
 */
export async function createRedisRuntimeStore(options: RedisRuntimeStoreOptions): Promise<RuntimeStore> {
  const onError = options.onError ?? (() => {});
  const connectionOptions = {
    commandTimeout: options.timeoutMs ?? 2_000,
    maxRetriesPerRequest: 1,
    // Keep reconnecting, quickly, for as long as it takes: recovery is automatic.
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
  };
  // Commands fail at once while disconnected: an admin call answers 503 instead of hanging.
  const redis = new Redis(options.url, { ...connectionOptions, enableOfflineQueue: false });
  // The subscriber queues its SUBSCRIBE until connected and resubscribes after reconnects.
  const subscriber = new Redis(options.url, connectionOptions);
  redis.on('error', onError);
  subscriber.on('error', onError);
  defineCatalogCommands(redis);
  const listeners: Array<(version: number | undefined) => void> = [];
  const notify = (version: number | undefined) => {
    for (const listener of listeners) listener(version);
  };
  subscriber.on('message', (_channel: string, message: string) => notify(Number(message)));
  try {
    await Promise.all([whenReady(redis, options.connectTimeoutMs ?? 10_000), whenReady(subscriber, options.connectTimeoutMs ?? 10_000)]);
    await subscriber.subscribe(CATALOG_CHANGES_CHANNEL);
  } catch (error) {
    redis.disconnect();
    subscriber.disconnect();
    throw new Error(`catalog store: Redis at ${redactUrl(options.url)} is not reachable`, { cause: error });
  }
  // Messages published while the subscriber was away are lost: after a reconnect, tell the
  // listeners to re-read everything (no version known).
  subscriber.on('ready', () => notify(undefined));

  const { tenants: TENANTS, keys: KEYS, version: VERSION, config: CONFIG } = CATALOG_KEYS;
  const channel = CATALOG_CHANGES_CHANNEL;

  /** Updates of this process run one at a time, so compare-and-set only races other replicas. */
  let updates: Promise<unknown> = Promise.resolve();
  function compareAndSet<T>(
    hashKey: string,
    field: string,
    missing: StoreRejectionReason,
    update: (current: T) => T | undefined,
  ): Promise<{ version: number; value: T | undefined }> {
    const run = updates.then(() => compareAndSetNow(hashKey, field, missing, update));
    updates = run.catch(() => {});
    return run;
  }

  async function compareAndSetNow<T>(
    hashKey: string,
    field: string,
    missing: StoreRejectionReason,
    update: (current: T) => T | undefined,
  ): Promise<{ version: number; value: T | undefined }> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt += 1) {
      // Jittered backoff after a lost race, so contenders spread out.
      if (attempt > 0) await sleep(Math.random() * 5 * Math.min(attempt, 4));
      const raw = await redis.hget(hashKey, field);
      if (raw === null) throw new StoreRejection(missing);
      const next = update(JSON.parse(raw) as T);
      const version = await redis.catalogReplaceEntity(hashKey, VERSION, channel, field, raw, next === undefined ? '' : JSON.stringify(next));
      if (version === -1) throw new StoreRejection(missing);
      if (version >= 0) return { version, value: next };
      // -2: changed since it was read; read again and reapply.
    }
    throw new Error(`catalog store: ${field} changed ${MAX_CAS_ATTEMPTS} times while being updated`);
  }

  return {
    shared: true,
    async read(): Promise<RuntimeState> {
      const replies = await redis.multi().get(VERSION).get(CONFIG).hgetall(TENANTS).hgetall(KEYS).exec();
      if (replies === null) throw new Error('catalog store: read transaction aborted');
      for (const [error] of replies) if (error) throw error;
      const [version, fingerprint, tenants, keys] = replies.map(([, value]) => value) as [
        string | null,
        string | null,
        Record<string, string>,
        Record<string, string>,
      ];
      return {
        version: version === null ? 0 : Number(version),
        configFingerprint: fingerprint ?? undefined,
        tenants: new Map(Object.values(tenants).map((json) => {
          const tenant = JSON.parse(json) as StoredTenant;
          return [tenant.id, tenant];
        })),
        keys: new Map(Object.entries(keys).map(([field, json]) => [field, JSON.parse(json) as StoredKey])),
      };
    },
    async readVersion() {
      const version = await redis.get(VERSION);
      return version === null ? 0 : Number(version);
    },
    async announceConfig(fingerprint, { force = false } = {}) {
      const [changed, version] = await redis.catalogAnnounceConfig(CONFIG, VERSION, channel, fingerprint, force ? '1' : '0');
      return { version, changed: changed === 1 };
    },
    async createTenant(tenant) {
      const version = await redis.catalogCreateTenant(TENANTS, KEYS, VERSION, channel, tenantField(tenant.id), JSON.stringify(tenant), tenantKeysPrefix(tenant.id));
      if (version < 0) throw new StoreRejection('tenant_exists');
      return version;
    },
    async updateTenant(tenantId, update) {
      const { version, value } = await compareAndSet<StoredTenant>(TENANTS, tenantField(tenantId), 'tenant_not_found', update);
      return { version, tenant: value as StoredTenant };
    },
    async deleteTenant(tenantId) {
      const [version, deletedKeys] = await redis.catalogDeleteTenant(TENANTS, KEYS, VERSION, channel, tenantField(tenantId), tenantKeysPrefix(tenantId));
      if (version < 0) throw new StoreRejection('tenant_not_found');
      return { version, deletedKeys };
    },
    async createKey(key, { requireStoredTenant }) {
      const version = await redis.catalogCreateKey(
        TENANTS,
        KEYS,
        VERSION,
        channel,
        requireStoredTenant ? tenantField(key.tenantId) : '',
        keyField(key.tenantId, key.id),
        JSON.stringify(key),
      );
      if (version === -1) throw new StoreRejection('key_exists');
      if (version === -2) throw new StoreRejection('tenant_not_found');
      return version;
    },
    async updateKey(tenantId, keyId, update) {
      const { version, value } = await compareAndSet<StoredKey>(KEYS, keyField(tenantId, keyId), 'key_not_found', update);
      return { version, key: value as StoredKey };
    },
    async deleteKey(tenantId, keyId) {
      const { version } = await compareAndSet<StoredKey>(KEYS, keyField(tenantId, keyId), 'key_not_found', () => undefined);
      return version;
    },
    onChange(listener) {
      listeners.push(listener);
    },
    async close() {
      listeners.length = 0;
      await Promise.all([redis.quit().catch(() => redis.disconnect()), subscriber.quit().catch(() => subscriber.disconnect())]);
    },
  };
}

function whenReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    let lastError: unknown;
    const remember = (error: unknown) => {
      lastError = error;
    };
    const timer = setTimeout(() => {
      redis.off('ready', ready);
      redis.off('error', remember);
      reject(lastError ?? new Error(`not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    const ready = () => {
      clearTimeout(timer);
      redis.off('error', remember);
      resolve();
    };
    redis.once('ready', ready);
    redis.on('error', remember);
  });
}

/** A Redis URL without its password, for messages. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}
