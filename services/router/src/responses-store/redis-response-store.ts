import { connectRedis } from './connect-redis.ts';
import { DEFAULT_RESPONSE_TTL_SECONDS, type ResponseStore, type StoredResponse } from './response-store.ts';

/**
 * Responses kept in Redis with a TTL, one string key each, hash-tagged by tenant
 * (`sy:{t:<tenant>}:resp:<id>`) so a tenant's keys live on one Cluster slot and the tenant is
 * part of the key: another tenant's id simply does not exist.
 */
export function createRedisResponseStore(options: { url: string; ttlSeconds?: number; timeoutMs?: number }): ResponseStore {
  const { redis, ready: connected } = connectRedis(options.url, options.timeoutMs);
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
