import type { CatalogSnapshot, KeyRecord, TenantRecord } from '@switchyard/catalog-client';
import type { RuntimeState } from './store/runtime-store.ts';

/**
 * The snapshot the catalog serves: the config file's snapshot plus the runtime tenants and
 * keys. The file wins where both define the same tenant or key (the runtime one is kept in
 * the store, hidden, and reappears if the file drops its own). A runtime key whose tenant
 * exists in neither is left out: it cannot authenticate.
 */
export function mergeSnapshot(fromConfig: CatalogSnapshot, runtime: RuntimeState, version: number): CatalogSnapshot {
  const tenants: TenantRecord[] = [...fromConfig.tenants];
  const tenantIds = new Set(tenants.map((tenant) => tenant.id));
  for (const tenant of [...runtime.tenants.values()].sort(byId)) {
    if (tenantIds.has(tenant.id)) continue;
    tenantIds.add(tenant.id);
    tenants.push({ id: tenant.id, models: tenant.models, limits: tenant.limits });
  }
  const keys: KeyRecord[] = [...fromConfig.keys];
  const keyIds = new Set(keys.map((key) => `${key.tenantId}\u0000${key.id}`));
  const hashes = new Set(keys.map((key) => key.sha256));
  for (const key of [...runtime.keys.values()].sort((a, b) => byId({ id: a.tenantId }, { id: b.tenantId }) || byId(a, b))) {
    const id = `${key.tenantId}\u0000${key.id}`;
    if (!tenantIds.has(key.tenantId) || keyIds.has(id) || hashes.has(key.sha256)) continue;
    keyIds.add(id);
    hashes.add(key.sha256);
    keys.push({ id: key.id, tenantId: key.tenantId, sha256: key.sha256, limits: key.limits, ...(key.models === undefined ? {} : { models: key.models }) });
  }
  return { ...fromConfig, version, tenants, keys };
}

function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
