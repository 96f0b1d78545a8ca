import { keyField, tenantKeysPrefix } from './keys.ts';
import { StoreRejection, type RuntimeState, type RuntimeStore, type StoredKey, type StoredTenant } from './runtime-store.ts';

/**
 * Runtime changes kept in this process: one catalog instance only, lost at restart. The same
 * rules as the Redis store, so both modes behave alike. The version starts at the clock (ms)
 * so a restarted catalog never reuses a number its clients already hold for other content.
 */
export function createMemoryRuntimeStore(options: { now?: () => number } = {}): RuntimeStore {
  let version = (options.now ?? Date.now)();
  let configFingerprint: string | undefined;
  const tenants = new Map<string, StoredTenant>();
  const keys = new Map<string, StoredKey>();
  const listeners: Array<(version: number) => void> = [];

  function bump(): number {
    version += 1;
    const announced = version;
    queueMicrotask(() => {
      for (const listener of listeners) listener(announced);
    });
    return announced;
  }

  function deleteKeysOf(tenantId: string): number {
    let deleted = 0;
    for (const field of [...keys.keys()]) {
      if (field.startsWith(tenantKeysPrefix(tenantId))) {
        keys.delete(field);
        deleted += 1;
      }
    }
    return deleted;
  }

  return {
    shared: false,
    async read(): Promise<RuntimeState> {
      return { version, configFingerprint, tenants: new Map(structuredClone([...tenants])), keys: new Map(structuredClone([...keys])) };
    },
    async readVersion() {
      return version;
    },
    async announceConfig(fingerprint, { force = false } = {}) {
      if (fingerprint === configFingerprint && !force) return { version, changed: false };
      configFingerprint = fingerprint;
      return { version: bump(), changed: true };
    },
    async createTenant(tenant) {
      if (tenants.has(tenant.id)) throw new StoreRejection('tenant_exists');
      deleteKeysOf(tenant.id);
      tenants.set(tenant.id, structuredClone(tenant));
      return bump();
    },
    async updateTenant(tenantId, update) {
      const current = tenants.get(tenantId);
      if (current === undefined) throw new StoreRejection('tenant_not_found');
      const next = update(structuredClone(current));
      tenants.set(tenantId, structuredClone(next));
      return { version: bump(), tenant: next };
    },
    async deleteTenant(tenantId) {
      if (!tenants.delete(tenantId)) throw new StoreRejection('tenant_not_found');
      const deletedKeys = deleteKeysOf(tenantId);
      return { version: bump(), deletedKeys };
    },
    async createKey(key, { requireStoredTenant }) {
      if (requireStoredTenant && !tenants.has(key.tenantId)) throw new StoreRejection('tenant_not_found');
      const field = keyField(key.tenantId, key.id);
      if (keys.has(field)) throw new StoreRejection('key_exists');
      keys.set(field, structuredClone(key));
      return bump();
    },
    async updateKey(tenantId, keyId, update) {
      const field = keyField(tenantId, keyId);
      const current = keys.get(field);
      if (current === undefined) throw new StoreRejection('key_not_found');
      const next = update(structuredClone(current));
      keys.set(field, structuredClone(next));
      return { version: bump(), key: next };
    },
    async deleteKey(tenantId, keyId) {
      if (!keys.delete(keyField(tenantId, keyId))) throw new StoreRejection('key_not_found');
      return bump();
    },
    onChange(listener) {
      listeners.push(listener);
    },
    async close() {
      listeners.length = 0;
    },
  };
}
