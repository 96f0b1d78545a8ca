import { budgetPeriods, budgetTtlMs, chargeUsage, currentUsage, type BudgetPeriods, type BudgetUsage, type StoredBudget } from './budget-period.ts';
import { DEFAULT_LEASE_MS, PERIOD_MS } from './constants.ts';
import { decideAdmission, type ScopeCharge, type ScopeInput } from './decide-admission.ts';
import { keyScopeKeys, tenantScopeKeys, type ScopeKeys } from './keys.ts';
import type { AdmissionRequest, AdmissionResult, Limiter, LimitScope, LimitSet, ReconcileRequest, ReleaseRequest } from './limiter.ts';
import { chargeWindow, currentWindow, refundWindow, slotOf, WINDOW_TTL_MS, type SlotWindow } from './sliding-window.ts';
import { assertAdmittedAt, assertLimitSet, hasAnyLimit, hasBudget, tokenCost, tokenDelta } from './validate-request.ts';

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
 * limiter while Redis is unreachable. Same maths as lua/includes/admit.lua, same key names as keys.ts,
 * with expiry standing in for Redis TTLs, so the two answer alike for the same history.
 */
export function createMemoryLimiter(options: MemoryLimiterOptions = {}): Limiter {
  const now = options.now ?? Date.now;
  const leaseMs = options.concurrencyLeaseMs ?? DEFAULT_LEASE_MS;
  const windows = new Map<string, SlotWindow & Expiring>();
  const budgets = new Map<string, StoredBudget & Expiring>();
  /** requestId → lease expiry, per concurrency key. */
  const leases = new Map<string, Map<string, number>>();

  // Expired entries are skipped when read; the sweep only bounds memory for tenants gone idle.
  const sweeper = setInterval(() => {
    const at = now();
    for (const map of [windows, budgets]) {
      for (const [key, entry] of map) if (entry.expiresAt <= at) map.delete(key);
    }
    for (const key of leases.keys()) liveLeases(key, at);
  }, PERIOD_MS);
  sweeper.unref();

  /** The window as it counts at `at`, slots that have left dropped; an emptied window is forgotten. */
  function readWindow(key: string, at: number): (SlotWindow & Expiring) | undefined {
    const entry = windows.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > at && currentWindow(entry, slotOf(at)) !== undefined) return entry;
    windows.delete(key);
    return undefined;
  }

  /**
   * Adds units to the current slot and renews the expiry (the script renews it only when a newer
   * slot starts; either way it outlives the newest slot, and no answer depends on it).
   */
  function chargeCurrentSlot(key: string, current: SlotWindow | undefined, amount: number, at: number): void {
    const window = chargeWindow(current, slotOf(at), amount) as SlotWindow & Expiring;
    window.expiresAt = at + WINDOW_TTL_MS;
    if (window !== current) windows.set(key, window);
  }

  function refundSlot(key: string, admittedAt: number, amount: number, at: number): void {
    if (refundWindow(readWindow(key, at), slotOf(at), slotOf(admittedAt), amount) === undefined) windows.delete(key);
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
    // forEach rather than a destructuring for…of: the loop's entry arrays are garbage per lease.
    held.forEach((expiresAt, requestId) => {
      if (expiresAt <= at) held.delete(requestId);
    });
    if (held.size === 0) leases.delete(key);
    return held.size === 0 ? undefined : held;
  }

  /**
   * The leases of a concurrency key, expired ones dropped only when they could matter: while
   * fewer are held than the limit, dropping some cannot change the answer, and walking every
   * open request's lease on every admission was most of what admission cost with many open.
   * The minute's sweep bounds what is kept meanwhile.
   */
  function leasesFor(key: string, limit: number, at: number): Map<string, number> | undefined {
    const held = leases.get(key);
    return held !== undefined && held.size >= limit ? liveLeases(key, at) : held;
  }

  function readScope(scope: LimitScope, limits: LimitSet, keys: ScopeKeys, requestId: string, periods: BudgetPeriods, at: number): ScopeInput {
    const held = limits.concurrency === undefined ? undefined : leasesFor(keys.concurrency, limits.concurrency, at);
    return {
      scope,
      limits,
      state: {
        requests: limits.rpm === undefined ? undefined : readWindow(keys.requests, at),
        tokens: limits.tpm === undefined ? undefined : readWindow(keys.tokens, at),
        slotsInUse: held?.size ?? 0,
        // A lease of this request that expired is not held, pruned or not.
        holdsSlot: (held?.get(requestId) ?? 0) > at,
        budget: hasBudget(limits) ? readBudget(keys.budget, periods, at) : { dayUsed: 0, monthUsed: 0 },
      },
    };
  }

  return {
    async admit(request: AdmissionRequest): Promise<AdmissionResult> {
      assertLimitSet(request.tenantLimits, 'tenant');
      assertLimitSet(request.keyLimits, 'key');
      const cost = tokenCost(request.estimatedTokens);
      // As the Redis limiter does: nothing to check, nothing reserved, so no admission time either.
      if (!hasAnyLimit(request.tenantLimits) && !hasAnyLimit(request.keyLimits)) return { allowed: true, retryAfterMs: 0, degraded: false };
      const at = now();
      const periods = budgetPeriods(at);
      const scopeKeys = [tenantScopeKeys(request.tenantId), keyScopeKeys(request.tenantId, request.keyId)] as const;
      const inputs: [ScopeInput, ScopeInput] = [
        readScope('tenant', request.tenantLimits, scopeKeys[0], request.requestId, periods, at),
        readScope('key', request.keyLimits, scopeKeys[1], request.requestId, periods, at),
      ];
      const { result, charges } = decideAdmission(inputs, cost, periods, at);
      for (let index = 0; charges !== undefined && index < 2; index++) {
        const charge = charges[index] as ScopeCharge;
        const keys = scopeKeys[index] as ScopeKeys;
        // The windows read for the decision are the stored ones, already current.
        const { state } = inputs[index] as ScopeInput;
        if (charge.requests !== undefined) chargeCurrentSlot(keys.requests, state.requests, charge.requests, at);
        if (charge.tokens !== undefined) chargeCurrentSlot(keys.tokens, state.tokens, charge.tokens, at);
        if (charge.takeSlot) {
          const held = leases.get(keys.concurrency) ?? new Map<string, number>();
          held.set(request.requestId, at + leaseMs);
          leases.set(keys.concurrency, held);
        }
        if (charge.budget !== undefined) writeBudget(keys.budget, charge.budget, periods, at);
      }
      // The decision's result is made for this call: completed in place rather than copied.
      if (result.allowed) result.admittedAt = at;
      return result;
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
      assertAdmittedAt(request.admittedAt);
      const delta = tokenDelta(request.deltaTokens);
      if (delta === 0) return;
      const at = now();
      const periods = budgetPeriods(at);
      const scopes = [
        { limits: request.tenantLimits, keys: tenantScopeKeys(request.tenantId) },
        { limits: request.keyLimits, keys: keyScopeKeys(request.tenantId, request.keyId) },
      ];
      for (const { limits, keys } of scopes) {
        if (limits.tpm !== undefined) {
          // More than estimated: charged now (the answer just used them). Less: given back to the
          // reservation's own slot while it still counts, and only when we know which slot that is.
          if (delta > 0) chargeCurrentSlot(keys.tokens, readWindow(keys.tokens, at), delta, at);
          else if (request.admittedAt !== undefined) refundSlot(keys.tokens, request.admittedAt, -delta, at);
        }
        if (hasBudget(limits)) writeBudget(keys.budget, chargeUsage(readBudget(keys.budget, periods, at), delta), periods, at);
      }
    },

    ready: () => Promise.resolve(),

    async close(): Promise<void> {
      clearInterval(sweeper);
    },
  };
}
