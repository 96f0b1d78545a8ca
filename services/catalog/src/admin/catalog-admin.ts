import { createApiKey, hashKey, type CatalogIndex, type KeyRecord, type LimitSet, type TenantRecord } from '@switchyard/catalog-client';
import { randomBytes } from 'node:crypto';
import type { ConfigCatalog } from '../config-file.ts';
import type { CatalogLogger } from '../logger.ts';
import { keyField } from '../store/keys.ts';
import { StoreRejection, type RuntimeState, type RuntimeStore, type StoredKey, type StoredTenant } from '../store/runtime-store.ts';
import { AdminError } from './admin-error.ts';
import type { CreateKeyInput, CreateTenantInput, LimitPatch, UpdateKeyInput, UpdateTenantInput } from './admin-schemas.ts';

/** Where an entity is defined: the config file (read-only here) or the admin API. */
export type EntitySource = 'config' | 'api';

export interface TenantView {
  id: string;
  models: string[];
  limits: LimitSet;
  source: EntitySource;
  /** Keys that can authenticate for the tenant. */
  keyCount: number;
  createdAt?: string;
  updatedAt?: string;
}

/** A key as the admin API shows it: never the key, never its hash. */
export interface KeyView {
  id: string;
  tenantId: string;
  limits: LimitSet;
  /** The key's own allow-list, narrowing the tenant's; absent = the tenant's. */
  models?: string[];
  source: EntitySource;
  createdAt?: string;
  updatedAt?: string;
  rotatedAt?: string;
}

/** A created or rotated key: the only time the plaintext is ever shown. */
export interface IssuedKey extends KeyView {
  key: string;
}

/** What the admin operations read: one consistent state of the catalog. */
export interface CatalogView {
  config: ConfigCatalog;
  runtime: RuntimeState;
  index: CatalogIndex;
}

export interface CatalogAdminDependencies {
  store: RuntimeStore;
  view(): CatalogView;
  /** Re-reads the store; resolves once the served snapshot includes every change made before the call. */
  refresh(): Promise<void>;
  logger: CatalogLogger;
}

/**
 * The admin operations on tenants and keys, apart from HTTP. Entities of the config file are
 * read-only here (the file is the declarative source; edit it instead): the API creates and
 * changes runtime tenants and keys, and may add runtime keys to config tenants. Every change
 * is atomic in the store, and the call returns once this replica serves it.
 */
export class CatalogAdmin {
  readonly #store: RuntimeStore;
  readonly #view: () => CatalogView;
  readonly #refresh: () => Promise<void>;
  readonly #logger: CatalogLogger;

  constructor(dependencies: CatalogAdminDependencies) {
    this.#store = dependencies.store;
    this.#view = dependencies.view;
    this.#refresh = dependencies.refresh;
    this.#logger = dependencies.logger;
  }

  listTenants(): TenantView[] {
    const view = this.#view();
    return view.index.snapshot.tenants.map((tenant) => tenantView(view, tenant));
  }

  getTenant(tenantId: string): TenantView {
    const view = this.#view();
    return tenantView(view, requireTenant(view, tenantId));
  }

  async createTenant(input: CreateTenantInput): Promise<TenantView> {
    const view = this.#view();
    if (isConfigTenant(view, input.id)) {
      throw new AdminError(409, 'tenant_exists', `Tenant '${input.id}' is defined in the config file.`);
    }
    const now = new Date().toISOString();
    const tenant: StoredTenant = { id: input.id, models: input.models, limits: input.limits, createdAt: now, updatedAt: now };
    await this.#change(() => this.#store.createTenant(tenant));
    this.#logger.info({ tenantId: tenant.id }, 'admin: tenant created');
    return this.getTenant(tenant.id);
  }

  async updateTenant(tenantId: string, patch: UpdateTenantInput): Promise<TenantView> {
    requireRuntimeTenant(this.#view(), tenantId);
    await this.#change(() =>
      this.#store.updateTenant(tenantId, (current) => ({
        ...current,
        ...(patch.models === undefined ? {} : { models: patch.models }),
        ...(patch.limits === undefined ? {} : { limits: applyLimitPatch(current.limits, patch.limits) }),
        updatedAt: new Date().toISOString(),
      })),
    );
    this.#logger.info({ tenantId }, 'admin: tenant updated');
    return this.getTenant(tenantId);
  }

  async deleteTenant(tenantId: string): Promise<{ id: string; deleted: true; revokedKeys: number }> {
    requireRuntimeTenant(this.#view(), tenantId);
    const { deletedKeys } = await this.#change(() => this.#store.deleteTenant(tenantId));
    this.#logger.info({ tenantId, revokedKeys: deletedKeys }, 'admin: tenant deleted, its keys revoked');
    return { id: tenantId, deleted: true, revokedKeys: deletedKeys };
  }

  listKeys(tenantId: string): KeyView[] {
    const view = this.#view();
    requireTenant(view, tenantId);
    return view.index.snapshot.keys.filter((key) => key.tenantId === tenantId).map((key) => keyView(view, key));
  }

  getKey(tenantId: string, keyId: string): KeyView {
    const view = this.#view();
    requireTenant(view, tenantId);
    return keyView(view, requireKey(view, tenantId, keyId));
  }

  async createKey(tenantId: string, input: CreateKeyInput): Promise<IssuedKey> {
    const view = this.#view();
    requireTenant(view, tenantId);
    const keyId = input.id ?? `key-${randomBytes(6).toString('hex')}`;
    if (view.index.keyOf(tenantId, keyId) !== undefined) {
      throw new AdminError(409, 'key_exists', `Tenant '${tenantId}' already has a key '${keyId}'.`);
    }
    const plaintext = createApiKey();
    const now = new Date().toISOString();
    const key: StoredKey = {
      id: keyId,
      tenantId,
      sha256: hashKey(plaintext),
      limits: input.limits,
      ...(input.models === undefined ? {} : { models: input.models }),
      createdAt: now,
      updatedAt: now,
    };
    await this.#change(() => this.#store.createKey(key, { requireStoredTenant: !isConfigTenant(view, tenantId) }));
    this.#logger.info({ tenantId, keyId }, 'admin: key created');
    return { ...this.getKey(tenantId, keyId), key: plaintext };
  }

  async updateKey(tenantId: string, keyId: string, patch: UpdateKeyInput): Promise<KeyView> {
    requireRuntimeKey(this.#view(), tenantId, keyId);
    await this.#change(() =>
      this.#store.updateKey(tenantId, keyId, (current) => {
        const next: StoredKey = { ...current, updatedAt: new Date().toISOString() };
        if (patch.limits !== undefined) next.limits = applyLimitPatch(current.limits, patch.limits);
        if (patch.models === null) delete next.models;
        else if (patch.models !== undefined) next.models = patch.models;
        return next;
      }),
    );
    this.#logger.info({ tenantId, keyId }, 'admin: key updated');
    return this.getKey(tenantId, keyId);
  }

  /** A new key for the same id, limits and models; the old key stops working at once. */
  async rotateKey(tenantId: string, keyId: string): Promise<IssuedKey> {
    requireRuntimeKey(this.#view(), tenantId, keyId);
    const plaintext = createApiKey();
    await this.#change(() =>
      this.#store.updateKey(tenantId, keyId, (current) => {
        const now = new Date().toISOString();
        return { ...current, sha256: hashKey(plaintext), updatedAt: now, rotatedAt: now };
      }),
    );
    this.#logger.info({ tenantId, keyId }, 'admin: key rotated');
    return { ...this.getKey(tenantId, keyId), key: plaintext };
  }

  async deleteKey(tenantId: string, keyId: string): Promise<{ id: string; tenantId: string; deleted: true }> {
    requireRuntimeKey(this.#view(), tenantId, keyId);
    await this.#change(() => this.#store.deleteKey(tenantId, keyId));
    this.#logger.info({ tenantId, keyId }, 'admin: key revoked');
    return { id: keyId, tenantId, deleted: true };
  }

  /** Runs one store change, maps its refusals to API errors, and waits until this replica serves it. */
  async #change<T>(change: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await change();
    } catch (error) {
      if (error instanceof StoreRejection) throw rejectionError(error);
      if (error instanceof AdminError) throw error;
      this.#logger.error({ err: error }, 'admin: catalog store failed');
      throw new AdminError(503, 'store_unavailable', 'The catalog store is unavailable; try again.', { cause: error });
    }
    await this.#refresh();
    return result;
  }
}

function rejectionError(rejection: StoreRejection): AdminError {
  switch (rejection.reason) {
    case 'tenant_exists':
      return new AdminError(409, 'tenant_exists', 'A tenant with this id exists.');
    case 'tenant_not_found':
      return new AdminError(404, 'tenant_not_found', 'No such tenant.');
    case 'key_exists':
      return new AdminError(409, 'key_exists', 'The tenant already has a key with this id.');
    case 'key_not_found':
      return new AdminError(404, 'key_not_found', 'No such key.');
  }
}

function applyLimitPatch(current: LimitSet, patch: LimitPatch): LimitSet {
  const next: Record<string, number> = { ...current } as Record<string, number>;
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete next[name];
    else if (value !== undefined) next[name] = value;
  }
  return next as LimitSet;
}

function isConfigTenant(view: CatalogView, tenantId: string): boolean {
  return view.config.snapshot.tenants.some((tenant) => tenant.id === tenantId);
}

function isConfigKey(view: CatalogView, tenantId: string, keyId: string): boolean {
  return view.config.snapshot.keys.some((key) => key.tenantId === tenantId && key.id === keyId);
}

function requireTenant(view: CatalogView, tenantId: string): TenantRecord {
  const tenant = view.index.tenant(tenantId);
  if (tenant === undefined) throw new AdminError(404, 'tenant_not_found', `No tenant '${tenantId}'.`);
  return tenant;
}

function requireRuntimeTenant(view: CatalogView, tenantId: string): void {
  requireTenant(view, tenantId);
  if (isConfigTenant(view, tenantId)) {
    throw new AdminError(409, 'managed_by_config', `Tenant '${tenantId}' is defined in the config file; change it there.`);
  }
}

function requireKey(view: CatalogView, tenantId: string, keyId: string): KeyRecord {
  const key = view.index.keyOf(tenantId, keyId);
  if (key === undefined) throw new AdminError(404, 'key_not_found', `Tenant '${tenantId}' has no key '${keyId}'.`);
  return key;
}

function requireRuntimeKey(view: CatalogView, tenantId: string, keyId: string): void {
  requireTenant(view, tenantId);
  requireKey(view, tenantId, keyId);
  if (isConfigKey(view, tenantId, keyId)) {
    throw new AdminError(409, 'managed_by_config', `Key '${keyId}' of tenant '${tenantId}' is defined in the config file; change it there.`);
  }
}

function tenantView(view: CatalogView, tenant: TenantRecord): TenantView {
  const keyCount = view.index.snapshot.keys.filter((key) => key.tenantId === tenant.id).length;
  if (isConfigTenant(view, tenant.id)) return { id: tenant.id, models: tenant.models, limits: tenant.limits, source: 'config', keyCount };
  const stored = view.runtime.tenants.get(tenant.id);
  return {
    id: tenant.id,
    models: tenant.models,
    limits: tenant.limits,
    source: 'api',
    keyCount,
    ...(stored === undefined ? {} : { createdAt: stored.createdAt, updatedAt: stored.updatedAt }),
  };
}

function keyView(view: CatalogView, key: KeyRecord): KeyView {
  const base = { id: key.id, tenantId: key.tenantId, limits: key.limits, ...(key.models === undefined ? {} : { models: key.models }) };
  if (isConfigKey(view, key.tenantId, key.id)) return { ...base, source: 'config' };
  const stored = view.runtime.keys.get(keyField(key.tenantId, key.id));
  return {
    ...base,
    source: 'api',
    ...(stored === undefined ? {} : { createdAt: stored.createdAt, updatedAt: stored.updatedAt }),
    ...(stored?.rotatedAt === undefined ? {} : { rotatedAt: stored.rotatedAt }),
  };
}
