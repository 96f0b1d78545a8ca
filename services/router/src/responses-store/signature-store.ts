import type { ReasoningPart, VendorSignature } from '@switchyard/canonical';

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
export const SIGNATURE_TTL_SECONDS = 24 * 3600;

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
        entries.set(keyOf(tenantId, id), { value, expiresAt: Date.now() + SIGNATURE_TTL_SECONDS * 1000 });
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
