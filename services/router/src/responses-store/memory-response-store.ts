import { DEFAULT_RESPONSE_TTL_SECONDS, type ResponseStore, type StoredResponse } from './response-store.ts';

/** `all` without Redis: the same contract in process, with the same TTL, bounded in size. */
export function createMemoryResponseStore(options: { ttlSeconds?: number; maxEntries?: number } = {}): ResponseStore {
  const ttlMs = (options.ttlSeconds ?? DEFAULT_RESPONSE_TTL_SECONDS) * 1000;
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, { response: StoredResponse; expiresAt: number }>();
  const keyOf = (tenantId: string, id: string) => `${tenantId}\u0000${id}`;
  return {
    async save(response) {
      // Map keeps insertion order: the first entry is the oldest.
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      entries.set(keyOf(response.tenantId, response.id), { response, expiresAt: Date.now() + ttlMs });
    },
    async load(tenantId, id) {
      const entry = entries.get(keyOf(tenantId, id));
      if (entry === undefined) return undefined;
      if (entry.expiresAt <= Date.now()) {
        entries.delete(keyOf(tenantId, id));
        return undefined;
      }
      return entry.response;
    },
    async delete(tenantId, id) {
      return entries.delete(keyOf(tenantId, id));
    },
    async close() {
      entries.clear();
    },
  };
}
