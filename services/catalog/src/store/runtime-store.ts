import type { LimitSet } from '@switchyard/catalog-client';

/** A tenant created through the admin API. */
export interface StoredTenant {
  id: string;
  models: string[];
  limits: LimitSet;
  createdAt: string;
  updatedAt: string;
}

/** A key created through the admin API. Only the SHA-256 of the key is ever stored. */
export interface StoredKey {
  id: string;
  tenantId: string;
  sha256: string;
  limits: LimitSet;
  /** Per-key allow-list narrowing the tenant's; absent = the tenant's. */
  models?: string[];
  createdAt: string;
  updatedAt: string;
  rotatedAt?: string;
}

/** Everything the runtime store holds, read atomically with the version it belongs to. */
export interface RuntimeState {
  version: number;
  /** Fingerprint of the config file last announced by any replica (undefined: none yet). */
  configFingerprint: string | undefined;
  /** By tenant id. */
  tenants: Map<string, StoredTenant>;
  /** By `keyField(tenantId, keyId)`. */
  keys: Map<string, StoredKey>;
}

export type StoreRejectionReason = 'tenant_exists' | 'tenant_not_found' | 'key_exists' | 'key_not_found';

/** A change the store refused because of what it holds (checked atomically with the write). */
export class StoreRejection extends Error {
  readonly reason: StoreRejectionReason;
  constructor(reason: StoreRejectionReason) {
    super(reason);
    this.name = 'StoreRejection';
    this.reason = reason;
  }
}

/**
 * Where runtime changes live: Redis (shared by catalog replicas) or this process. Every
 * successful change bumps the version and announces it, and resolves with the new version.
 * Updates are read-modify-write with compare-and-set, so concurrent admins never lose a write.
 */
export interface RuntimeStore {
  /** Whether other processes share this store (changes may come from elsewhere). */
  readonly shared: boolean;
  read(): Promise<RuntimeState>;
  readVersion(): Promise<number>;
  /**
   * Records the fingerprint of the config file this replica serves. Bumps the version when it
   * differs from the one announced last (a restart with the same file changes nothing), or
   * always with `force` (this replica's content changed, even if another announced it first).
   */
  announceConfig(fingerprint: string, options?: { force?: boolean }): Promise<{ version: number; changed: boolean }>;
  /** Fails with `tenant_exists`. Removes keys left behind by an earlier tenant of that id. */
  createTenant(tenant: StoredTenant): Promise<number>;
  /** Fails with `tenant_not_found`. */
  updateTenant(tenantId: string, update: (current: StoredTenant) => StoredTenant): Promise<{ version: number; tenant: StoredTenant }>;
  /** Deletes the tenant and all its keys. Fails with `tenant_not_found`. */
  deleteTenant(tenantId: string): Promise<{ version: number; deletedKeys: number }>;
  /**
   * Fails with `key_exists`; with `tenant_not_found` when `requireStoredTenant` and the tenant
   * is not in the store (a key of a runtime tenant must not outlive a concurrent delete).
   */
  createKey(key: StoredKey, options: { requireStoredTenant: boolean }): Promise<number>;
  /** Fails with `key_not_found`. */
  updateKey(tenantId: string, keyId: string, update: (current: StoredKey) => StoredKey): Promise<{ version: number; key: StoredKey }>;
  /** Fails with `key_not_found`. */
  deleteKey(tenantId: string, keyId: string): Promise<number>;
  /** Called with the new version whenever any process changes the store; resubscribes after reconnects. */
  onChange(listener: (version: number | undefined) => void): void;
  close(): Promise<void>;
}
