import type { FormatId, ModelInfo } from '@switchyard/canonical';
import type { LimitSet } from '@switchyard/ratelimit';

/** The limits the ratelimit lib enforces, as the catalog holds them per tenant and key. */
export type { LimitSet };

export interface ProviderRecord {
  id: string;
  /** The wire format the upstream speaks; `simulator` providers resolve to the built-in simulator. */
  protocol: FormatId | 'simulator';
  /** For simulator providers: the protocol the simulator speaks for them. */
  speaks: FormatId;
  baseUrl?: string;
  apiKeys: string[];
  headers: Record<string, string>;
}

export interface DeploymentRecord {
  provider: string;
  model: string;
  weight: number;
  /** Tier, lowest first. */
  priority?: number;
  /** Requests per minute the deployment can take, per router process. */
  rpm?: number;
}

export interface ModelTimeouts {
  headersMs?: number;
  idleMs?: number;
  attemptMs?: number;
  totalMs?: number;
}

export interface RetryPolicy {
  attempts: number;
  backoffMs: number;
  maxBackoffMs: number;
}

export interface ModelRecord {
  name: string;
  kind: 'chat' | 'embedding';
  deployments: DeploymentRecord[];
  fallbacks: string[];
  maxOutputTokens?: number;
  timeouts?: ModelTimeouts;
  strategy?: 'weighted' | 'least-inflight' | 'lowest-latency';
  retry?: RetryPolicy;
  circuitBreaker?: { failures: number; cooldownMs: number };
  /** Millionths of the currency per one million tokens. */
  prices?: { inputPerMillion: number; outputPerMillion: number; cachedInputPerMillion?: number };
  info: ModelInfo;
}

export interface TenantRecord {
  id: string;
  /** Allow-list of public model names; `*` allows every model. */
  models: string[];
  limits: LimitSet;
}

export interface KeyRecord {
  id: string;
  tenantId: string;
  /** Lowercase hex SHA-256 of the key. The key itself is never stored. */
  sha256: string;
  limits: LimitSet;
  /** Per-key allow-list narrowing the tenant's. */
  models?: string[];
}

export interface LimitSettings {
  /** What admission does while the limit store (Redis) is unreachable. */
  onStoreFailure: { rates: 'open' | 'closed'; budgets: 'open' | 'closed' };
}

/** Everything ingresses and routers need, as served by the catalog. Versioned for change detection. */
export interface CatalogSnapshot {
  version: number;
  limits: LimitSettings;
  providers: Record<string, ProviderRecord>;
  models: ModelRecord[];
  tenants: TenantRecord[];
  keys: KeyRecord[];
}
