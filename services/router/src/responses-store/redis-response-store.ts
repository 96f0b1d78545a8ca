import { Redis } from 'ioredis';
import { DEFAULT_RESPONSE_TTL_SECONDS, type ResponseStore, type StoredResponse } from './response-store.ts';

/**
 * Responses kept in Redis with a TTL, one string key each, hash-tagged by tenant
 * (`sy:{t:<tenant>}:resp:<id>`) so a tenant's keys live on one Cluster slot and the tenant is
 * part of the key: another tenant's id simply does not exist.
 */
export function createRedisResponseStore(options: { url: string; ttlSeconds?: number; timeoutMs?: number }): ResponseStore {
  const redis = new Redis(options.url, {
    commandTimeout: options.timeoutMs ?? 1000,
    maxRetriesPerRequest: 1,
    // Fail fast while disconnected instead of queueing; the first connect is awaited below.
    enableOfflineQueue: false,
    lazyConnect: true,
  });
  // Connection errors surface as failed commands; without a listener ioredis would print them.
  redis.on('error', () => {});
  const connected = redis.connect().catch(() => {});
  const ttl = options.ttlSeconds ?? DEFAULT_RESPONSE_TTL_SECONDS;
  const keyOf = (tenantId: string, id: string) => `sy:{t:${tenantId}}:resp:${id}`;
  return {
    async save(response: StoredResponse) {
      await connected;
      await redis.set(keyOf(response.tenantId, response.id), JSON.stringify(response), 'EX', ttl);
    },
    async load(tenantId, id) {
      await connected;
      const text = await redis.get(keyOf(tenantId, id));
      return text === null ? undefined : (JSON.parse(text) as StoredResponse);
    },
    async delete(tenantId, id) {
      await connected;
      return (await redis.del(keyOf(tenantId, id))) > 0;
    },
    async close() {
      redis.disconnect();
    },
  };
}
