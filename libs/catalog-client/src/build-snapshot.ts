import { randomBytes } from 'node:crypto';
import type { SwitchyardConfig } from '@switchyard/config';
import { hashKey } from './hash-key.ts';
import type { CatalogSnapshot, KeyRecord, ModelRecord, ProviderRecord } from './snapshot.ts';

export interface GeneratedKey {
  tenantId: string;
  keyId: string;
  key: string;
}

/** Creation time shown in model lists: stable across restarts so clients can cache lists. */
const CATALOG_EPOCH = 1_767_225_600;

export function createApiKey(): string {
  return `sk-sy-${randomBytes(24).toString('base64url')}`;
}

/**
 * Turns a validated config file into the catalog snapshot. Plaintext keys are hashed here and
 * dropped; `generate: true` keys are minted and returned once so the CLI can print them.
 */
export function buildSnapshot(config: SwitchyardConfig, version = 1): { snapshot: CatalogSnapshot; generatedKeys: GeneratedKey[] } {
  const generatedKeys: GeneratedKey[] = [];
  const providers: Record<string, ProviderRecord> = {};
  for (const [id, provider] of Object.entries(config.providers)) {
    providers[id] = {
      id,
      protocol: provider.protocol,
      speaks: provider.protocol === 'simulator' ? provider.speaks : provider.protocol,
      ...(provider.baseUrl === undefined ? {} : { baseUrl: provider.baseUrl.replace(/\/+$/, '') }),
      apiKeys: provider.apiKeys ?? (provider.apiKey === undefined ? [] : [provider.apiKey]),
      headers: provider.headers,
    };
  }
  const models: ModelRecord[] = config.models.map((model) => ({
    name: model.name,
    kind: model.kind,
    deployments: model.deployments,
    fallbacks: model.fallbacks,
    ...(model.maxOutputTokens === undefined ? {} : { maxOutputTokens: model.maxOutputTokens }),
    ...(model.timeouts === undefined ? {} : { timeouts: model.timeouts }),
    strategy: model.strategy,
    retry: model.retry,
    ...(model.circuitBreaker === undefined ? {} : { circuitBreaker: model.circuitBreaker }),
    ...(model.prices === undefined ? {} : { prices: toMicros(model.prices) }),
    info: {
      id: model.name,
      created: CATALOG_EPOCH,
      ownedBy: model.ownedBy,
      kind: model.kind,
      ...(model.displayName === undefined ? {} : { displayName: model.displayName }),
      ...(model.description === undefined ? {} : { description: model.description }),
      ...(model.maxInputTokens === undefined ? {} : { maxInputTokens: model.maxInputTokens }),
      ...(model.maxOutputTokens === undefined ? {} : { maxOutputTokens: model.maxOutputTokens }),
    },
  }));
  const keys: KeyRecord[] = [];
  for (const tenant of config.tenants) {
    for (const entry of tenant.keys) {
      let sha256 = entry.sha256;
      if (sha256 === undefined) {
        const key = entry.key ?? createApiKey();
        if (entry.key === undefined) generatedKeys.push({ tenantId: tenant.id, keyId: entry.id, key });
        sha256 = hashKey(key);
      }
      keys.push({
        id: entry.id,
        tenantId: tenant.id,
        sha256,
        limits: entry.limits ?? {},
        ...(entry.models === undefined ? {} : { models: entry.models }),
      });
    }
  }
  const tenants = config.tenants.map((tenant) => ({ id: tenant.id, models: tenant.models, limits: tenant.limits }));
  const policy = config.limits.onStoreFailure;
  const limits = { onStoreFailure: typeof policy === 'string' ? { rates: policy, budgets: 'closed' as const } : policy };
  return { snapshot: { version, limits, providers, models, tenants, keys }, generatedKeys };
}

/** Config prices are currency units per million tokens; usage is costed in millionths (integers). */
function toMicros(prices: { input: number; output: number; cachedInput?: number | undefined }): NonNullable<ModelRecord['prices']> {
  const micros = (value: number) => Math.round(value * 1_000_000);
  return {
    inputPerMillion: micros(prices.input),
    outputPerMillion: micros(prices.output),
    ...(prices.cachedInput === undefined ? {} : { cachedInputPerMillion: micros(prices.cachedInput) }),
  };
}
