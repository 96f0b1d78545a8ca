import { budgetPeriods, budgetTtlMs, chargeUsage, currentUsage, type BudgetPeriods, type BudgetUsage, type StoredBudget } from './budget-period.ts';
import { DEFAULT_LEASE_MS, PERIOD_MS } from './constants.ts';
import { decideAdmission, type ScopeInput } from './decide-admission.ts';
import { bucketTtlMs, chargeBucket, drainBucket, type Bucket } from './gcra.ts';
import { keyScopeKeys, tenantScopeKeys, type ScopeKeys } from './keys.ts';
import type { AdmissionRequest, AdmissionResult, Limiter, LimitScope, LimitSet, ReconcileRequest, ReleaseRequest } from './limiter.ts';
import { assertLimitSet, hasBudget, tokenCost, tokenDelta } from './validate-request.ts';

export interface MemoryLimiterOptions {
  /** Clock in ms since the epoch; tests drive it. Defaults to `Date.now`. */
  now?: () => number;
  /** How long a concurrency slot is held without a release. */
  concurrencyLeaseMs?: number;
}

interface Expiring {
  expiresAt: number;
}

/**
 * The limiter for a single process: `all` without REDIS_URL, and the fallback of the Redis
 * limiter while Redis is unreachable. Same maths as lua/admit-8.lua, same key names as keys.ts,
 * with expiry standing in for Redis TTLs, so the two answer alike for the same history.
 */
export function createMemoryLimiter(options: MemoryLimiterOptions = {}): Limiter {
  const now = options.now ?? Date.now;
  const leaseMs = options.concurrencyLeaseMs ?? DEFAULT_LEASE_MS;
  const buckets = new Map<string, Bucket & Expiring>();
  const budgets = new Map<string, StoredBudget & Expiring>();
  /** requestId → lease expiry, per concurrency key. */
  const leases = new Map<string, Map<string, number>>();

  // Expired entries are skipped when read; the sweep only bounds memory for tenants gone idle.
  const sweeper = setInterval(() => {
    const at = now();
    for (const map of [buckets, budgets]) {
      for (const [key, entry] of map) if (entry.expiresAt <= at) map.delete(key);
    }
    for (const key of leases.keys()) liveLeases(key, at);
  }, PERIOD_MS);
  sweeper.unref();

  function readBucket(key: string, limit: number, at: number): number {
    const entry = buckets.get(key);
    return drainBucket(entry !== undefined && entry.expiresAt > at ? entry : undefined, limit, at);
  }

  function writeBucket(key: string, level: number, limit: number, at: number): void {
    if (level <= 0) buckets.delete(key);
    else buckets.set(key, { level, at, expiresAt: at + bucketTtlMs(level, limit) });
  }

  function readBudget(key: string, periods: BudgetPeriods, at: number): BudgetUsage {
    const entry = budgets.get(key);
    return currentUsage(entry !== undefined && entry.expiresAt > at ? entry : undefined, periods);
  }

  function writeBudget(key: string, usage: BudgetUsage, periods: BudgetPeriods, at: number): void {
    budgets.set(key, { day: periods.day, month: periods.month, ...usage, expiresAt: at + budgetTtlMs(periods) });
  }

  function liveLeases(key: string, at: number): Map<string, number> | undefined {
    const held = leases.get(key);
    if (held === undefined) return undefined;
    for (const [requestId, expiresAt] of held) if (expiresAt <= at) held.delete(requestId);
    if (held.size === 0) leases.delete(key);
    return held.size === 0 ? undefined : held;
  }

  function readScope(scope: LimitScope, limits: LimitSet, keys: ScopeKeys, requestId: string, periods: BudgetPeriods, at: number): ScopeInput {
    const held = limits.concurrency === undefined ? undefined : liveLeases(keys.concurrency, at);
    return {
      scope,
      limits,
      state: {
        requestsLevel: limits.rpm === undefined ? 0 : readBucket(keys.requests, limits.rpm, at),
        tokensLevel: limits.tpm === undefined ? 0 : readBucket(keys.tokens, limits.tpm, at),
        slotsInUse: held?.size ?? 0,
        holdsSlot: held?.has(requestId) ?? false,
        budget: hasBudget(limits) ? readBudget(keys.budget, periods, at) : { dayUsed: 0, monthUsed: 0 },
      },
    };
  }

  return {
    async admit(request: AdmissionRequest): Promise<AdmissionResult> {
      assertLimitSet(request.tenantLimits, 'tenant');
      assertLimitSet(request.keyLimits, 'key');
      const cost = tokenCost(request.estimatedTokens);
      const at = now();
      const periods = budgetPeriods(at);
      const scopeKeys = [tenantScopeKeys(request.tenantId), keyScopeKeys(request.tenantId, request.keyId)] as const;
      const inputs: [ScopeInput, ScopeInput] = [
        readScope('tenant', request.tenantLimits, scopeKeys[0], request.requestId, periods, at),
        readScope('key', request.keyLimits, scopeKeys[1], request.requestId, periods, at),
      ];
      const decision = decideAdmission(inputs, cost, periods);
      decision.charges?.forEach((charge, index) => {
        const { limits } = inputs[index] as ScopeInput;
        const keys = scopeKeys[index] as ScopeKeys;
        if (charge.requestsLevel !== undefined && limits.rpm !== undefined) writeBucket(keys.requests, charge.requestsLevel, limits.rpm, at);
        if (charge.tokensLevel !== undefined && limits.tpm !== undefined) writeBucket(keys.tokens, charge.tokensLevel, limits.tpm, at);
        if (charge.takeSlot) {
          const held = leases.get(keys.concurrency) ?? new Map<string, number>();
          held.set(request.requestId, at + leaseMs);
          leases.set(keys.concurrency, held);
        }
        if (charge.budget !== undefined) writeBudget(keys.budget, charge.budget, periods, at);
      });
      return { ...decision.result, degraded: false };
    },

    async release(request: ReleaseRequest): Promise<void> {
      for (const keys of [tenantScopeKeys(request.tenantId), keyScopeKeys(request.tenantId, request.keyId)]) {
        const held = leases.get(keys.concurrency);
        held?.delete(request.requestId);
        if (held?.size === 0) leases.delete(keys.concurrency);
      }
    },

    async reconcile(request: ReconcileRequest): Promise<void> {
      assertLimitSet(request.tenantLimits, 'tenant');
      assertLimitSet(request.keyLimits, 'key');
      const delta = tokenDelta(request.deltaTokens);
      if (delta === 0) return;
      const at = now();
      const periods = budgetPeriods(at);
      const scopes = [
        { limits: request.tenantLimits, keys: tenantScopeKeys(request.tenantId) },
        { limits: request.keyLimits, keys: keyScopeKeys(request.tenantId, request.keyId) },
      ];
      for (const { limits, keys } of scopes) {
        if (limits.tpm !== undefined) writeBucket(keys.tokens, chargeBucket(readBucket(keys.tokens, limits.tpm, at), delta), limits.tpm, at);
        if (hasBudget(limits)) writeBudget(keys.budget, chargeUsage(readBudget(keys.budget, periods, at), delta), periods, at);
      }
    },

    async close(): Promise<void> {
      clearInterval(sweeper);
    },
  };
}
