import { timingSafeEqual } from 'node:crypto';
import { hashKey } from './hash-key.ts';
import type { CatalogSnapshot, KeyRecord, ModelRecord, TenantRecord } from './snapshot.ts';

export interface Principal {
  key: KeyRecord;
  tenant: TenantRecord;
}

/**
 * A snapshot with the lookups the hot path needs, built once per catalog version so each
 * request costs one hash and a few Map reads.
 */
export class CatalogIndex {
  readonly snapshot: CatalogSnapshot;
  readonly #keysByHash = new Map<string, KeyRecord>();
  readonly #tenants = new Map<string, TenantRecord>();
  readonly #models = new Map<string, ModelRecord>();
  readonly #keysById = new Map<string, KeyRecord>();

  constructor(snapshot: CatalogSnapshot) {
    this.snapshot = snapshot;
    for (const key of snapshot.keys) {
      this.#keysByHash.set(key.sha256, key);
      this.#keysById.set(`${key.tenantId}\u0000${key.id}`, key);
    }
    for (const tenant of snapshot.tenants) this.#tenants.set(tenant.id, tenant);
    for (const model of snapshot.models) this.#models.set(model.name, model);
  }

  get version(): number {
    return this.snapshot.version;
  }

  /**
   * Finds the key's tenant. The lookup is by SHA-256, so timing reveals nothing about the key;
   * the final constant-time compare keeps that true even if the map were ever replaced.
   */
  authenticate(key: string): Principal | undefined {
    const digest = hashKey(key);
    const record = this.#keysByHash.get(digest);
    if (record === undefined) return undefined;
    if (!timingSafeEqual(Buffer.from(record.sha256, 'hex'), Buffer.from(digest, 'hex'))) return undefined;
    const tenant = this.#tenants.get(record.tenantId);
    return tenant === undefined ? undefined : { key: record, tenant };
  }

  tenant(id: string): TenantRecord | undefined {
    return this.#tenants.get(id);
  }

  keyOf(tenantId: string, keyId: string): KeyRecord | undefined {
    return this.#keysById.get(`${tenantId}\u0000${keyId}`);
  }

  model(name: string): ModelRecord | undefined {
    return this.#models.get(name);
  }

  /** Whether a tenant (and optionally one of its keys) may use a public model. */
  allows(tenant: TenantRecord, key: KeyRecord | undefined, model: string): boolean {
    const inList = (list: string[]) => list.includes('*') || list.includes(model);
    return inList(tenant.models) && (key?.models === undefined || inList(key.models));
  }

  /** The models a tenant (and key) may see, in catalog order. */
  visibleModels(tenant: TenantRecord, key: KeyRecord | undefined): ModelRecord[] {
    return this.snapshot.models.filter((model) => this.allows(tenant, key, model.name));
  }
}
