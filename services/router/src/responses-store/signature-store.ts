import type { ReasoningPart, VendorSignature } from '@switchyard/canonical';
import { connectRedis } from './connect-redis.ts';

/**
 * What a tool call carried that only its own vendor can use again (protocols.md §10.4
 * "Thinking continuity"): the signed reasoning that preceded it and its own signature
 * (generate-content `thoughtSignature`). Clients of other formats cannot send these back, so
 * Switchyard keeps them by call id and re-attaches them when the conversation returns.
 */
export interface CallSignatures {
  reasoning: ReasoningPart[];
  signature?: VendorSignature;
}

export interface SignatureStore {
  save(tenantId: string, entries: Map<string, CallSignatures>): Promise<void>;
  /** The entries known for these call ids (missing ids are absent). */
  load(tenantId: string, callIds: string[]): Promise<Map<string, CallSignatures>>;
  close(): Promise<void>;
}

/** A tool loop continues within minutes; a day covers a long pause. */
const TTL_SECONDS = 24 * 3600;

export function createMemorySignatureStore(maxEntries = 50_000): SignatureStore {
  const entries = new Map<string, { value: CallSignatures; expiresAt: number }>();
  const keyOf = (tenantId: string, id: string) => `${tenantId}\u0000${id}`;
  return {
    async save(tenantId, values) {
      for (const [id, value] of values) {
        if (entries.size >= maxEntries) {
          const oldest = entries.keys().next().value;
          if (oldest !== undefined) entries.delete(oldest);
        }
        entries.set(keyOf(tenantId, id), { value, expiresAt: Date.now() + TTL_SECONDS * 1000 });
      }
    },
    async load(tenantId, callIds) {
      const found = new Map<string, CallSignatures>();
      for (const id of callIds) {
        const entry = entries.get(keyOf(tenantId, id));
        if (entry !== undefined && entry.expiresAt > Date.now()) found.set(id, entry.value);
      }
      return found;
    },
    async close() {
      entries.clear();
    },
  };
}

/** In Redis, one key per call, hash-tagged by tenant (`sy:{t:<tenant>}:sig:<call id>`), with a TTL. */
export function createRedisSignatureStore(options: { url: string; timeoutMs?: number }): SignatureStore {
  const { redis, ready: connected } = connectRedis(options.url, options.timeoutMs);
  const keyOf = (tenantId: string, id: string) => `sy:{t:${tenantId}}:sig:${id}`;
  return {
    async save(tenantId, values) {
      if (values.size === 0) return;
      await connected;
      const pipeline = redis.pipeline();
      for (const [id, value] of values) pipeline.set(keyOf(tenantId, id), JSON.stringify(value), 'EX', TTL_SECONDS);
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
