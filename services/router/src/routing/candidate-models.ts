import type { CatalogIndex, KeyRecord, ModelRecord, TenantRecord } from '@switchyard/catalog-client';

/**
 * The models one request may be served by, in order: the one asked for, then its fallbacks
 * (design §7 `fallbacks`) that exist and that this tenant and key may use.
 */
export function candidateModels(primary: ModelRecord, index: CatalogIndex, tenant: TenantRecord, key: KeyRecord | undefined): ModelRecord[] {
  const models = [primary];
  for (const name of primary.fallbacks) {
    const fallback = index.model(name);
    if (fallback !== undefined && !models.includes(fallback) && index.allows(tenant, key, name)) models.push(fallback);
  }
  return models;
}
