import { connectRedis } from './connect-redis.ts';
import { SIGNATURE_TTL_SECONDS, type CallSignatures, type SignatureStore } from './signature-store.ts';

/** In Redis, one key per call, hash-tagged by tenant (`sy:{t:<tenant>}:sig:<call id>`), with a TTL. */
export function createRedisSignatureStore(options: { url: string; timeoutMs?: number }): SignatureStore {
  const { redis, ready: connected } = connectRedis(options.url, options.timeoutMs);
  const keyOf = (tenantId: string, id: string) => `sy:{t:${tenantId}}:sig:${id}`;
  return {
    async save(tenantId, values) {
      if (values.size === 0) return;
      await connected;
      const pipeline = redis.pipeline();
      for (const [id, value] of values) pipeline.set(keyOf(tenantId, id), JSON.stringify(value), 'EX', SIGNATURE_TTL_SECONDS);
      await pipeline.exec();
    },
    async load(tenantId, callIds) {
      const found = new Map<string, CallSignatures>();
      if (callIds.length === 0) return found;
      await connected;
      const values = await redis.mget(callIds.map((id) => keyOf(tenantId, id)));
      values.forEach((value, index) => {
        const id = callIds[index];
        if (value !== null && id !== undefined) found.set(id, JSON.parse(value) as CallSignatures);
      });
      return found;
    },
    async close() {
      redis.disconnect();
    },
  };
}
