import { admitToBudget, type BudgetPeriods, type BudgetUsage } from './budget-period.ts';
import { CONCURRENCY_RETRY_AFTER_MS } from './constants.ts';
import type { AdmissionResult, LimitScope, LimitSet, RefusedLimit, WindowState } from './limiter.ts';
import { describeWindow, NEVER, slotOf, waitForRoom, type SlotWindow } from './sliding-window.ts';

/**
 * The state of one scope as read at `now`, before this request. lua/includes/admit.lua computes the
 * same decision inside Redis; the equivalence test in redis-limiter.test.ts holds them together.
 */
export interface ScopeState {
  /** The request and token windows as they count now (sliding-window.ts); undefined when empty or not limited. */
  requests: SlotWindow | undefined;
  tokens: SlotWindow | undefined;
  /** Unexpired leases. */
  slotsInUse: number;
  /** This request id already holds a slot (an admit repeated with the same id). */
  holdsSlot: boolean;
  budget: BudgetUsage;
}

export interface ScopeInput {
  scope: LimitScope;
  limits: LimitSet;
  state: ScopeState;
}

/** What to write for one scope when the request is admitted: units to add to the current slot. */
export interface ScopeCharge {
  requests?: number;
  tokens?: number;
  takeSlot: boolean;
  budget?: BudgetUsage;
}

export interface AdmissionDecision {
  /** The limiter's answer, made for this call (a decision on the stored state is never degraded). */
  result: AdmissionResult;
  /** Present only when admitted: a refusal charges nothing anywhere. */
  charges?: [ScopeCharge, ScopeCharge];
}

interface Refusal {
  limit: RefusedLimit;
  scope: LimitScope;
  exceedsLimit: boolean;
  retryAfterMs: number;
}

/**
 * Checks every configured limit of the tenant and the key. The request needs all of them, so
 * the refusal reported is the one it would wait longest for: a limit it can never fit first,
 * then the longest wait, ties going to the earlier check (tenant before key; requests, tokens,
 * concurrency, daily, monthly).
 */
export function decideAdmission(scopes: [ScopeInput, ScopeInput], cost: number, periods: BudgetPeriods, now: number): AdmissionDecision {
  // Loops and a pure `longer` rather than forEach callbacks and a closure: this runs on every
  // admission of the in-memory limiter, and each of those was an allocation per request.
  let refusal: Refusal | undefined;
  const charges: [ScopeCharge, ScopeCharge] = [{ takeSlot: false }, { takeSlot: false }];

  for (let index = 0; index < 2; index++) {
    const { scope, limits, state } = scopes[index] as ScopeInput;
    const charge = charges[index] as ScopeCharge;
    if (limits.rpm !== undefined) {
      const wait = waitForRoom(state.requests, limits.rpm, 1, now);
      if (wait !== 0) refusal = longer(refusal, waited('requests', scope, wait));
      charge.requests = 1;
    }
    if (limits.tpm !== undefined) {
      const wait = waitForRoom(state.tokens, limits.tpm, cost, now);
      if (wait !== 0) refusal = longer(refusal, waited('tokens', scope, wait));
      // A free request charges no slot: a window only ever holds slots of more than 0 units.
      if (cost > 0) charge.tokens = cost;
    }
    if (limits.concurrency !== undefined) {
      charge.takeSlot = true;
      if (!state.holdsSlot && limits.concurrency === 0) {
        refusal = longer(refusal, { limit: 'concurrency', scope, exceedsLimit: true, retryAfterMs: 0 });
      } else if (!state.holdsSlot && state.slotsInUse >= limits.concurrency) {
        refusal = longer(refusal, { limit: 'concurrency', scope, exceedsLimit: false, retryAfterMs: CONCURRENCY_RETRY_AFTER_MS });
      }
    }
    if (limits.dailyTokens !== undefined || limits.monthlyTokens !== undefined) {
      if (limits.dailyTokens !== undefined) {
        const decision = admitToBudget(state.budget.dayUsed, limits.dailyTokens, cost, periods.msUntilNextDay);
        if (!decision.allowed) refusal = longer(refusal, refused('budget', scope, decision));
      }
      if (limits.monthlyTokens !== undefined) {
        const decision = admitToBudget(state.budget.monthUsed, limits.monthlyTokens, cost, periods.msUntilNextMonth);
        if (!decision.allowed) refusal = longer(refusal, refused('budget', scope, decision));
      }
      charge.budget = { dayUsed: state.budget.dayUsed + cost, monthUsed: state.budget.monthUsed + cost };
    }
  }

  // The headers describe the windows as they now are: charged if admitted, untouched if refused.
  const admitted = refusal === undefined;
  const slot = slotOf(now);
  let requests: WindowState | undefined;
  let tokens: WindowState | undefined;
  for (let index = 0; index < 2; index++) {
    const { limits, state } = scopes[index] as ScopeInput;
    const charge = charges[index] as ScopeCharge;
    if (limits.rpm !== undefined) {
      requests = tighter(requests, windowAfter(state.requests, limits.rpm, admitted ? (charge.requests ?? 0) : 0, slot, now));
    }
    if (limits.tpm !== undefined) {
      tokens = tighter(tokens, windowAfter(state.tokens, limits.tpm, admitted ? (charge.tokens ?? 0) : 0, slot, now));
    }
  }

  const result: AdmissionResult =
    refusal === undefined
      ? { allowed: true, retryAfterMs: 0, degraded: false }
      : { allowed: false, limit: refusal.limit, scope: refusal.scope, retryAfterMs: refusal.retryAfterMs, degraded: false };
  if (refusal?.exceedsLimit === true) result.exceedsLimit = true;
  if (requests !== undefined) result.requests = requests;
  if (tokens !== undefined) result.tokens = tokens;
  return refusal === undefined ? { result, charges } : { result };
}

/**
 * The refusal to report of two: a limit the request can never fit first, then the longer wait,
 * the earlier check on a tie.
 */
function longer(current: Refusal | undefined, candidate: Refusal): Refusal {
  if (current === undefined) return candidate;
  if (candidate.exceedsLimit && !current.exceedsLimit) return candidate;
  if (!candidate.exceedsLimit && !current.exceedsLimit && candidate.retryAfterMs > current.retryAfterMs) return candidate;
  return current;
}

function refused(limit: RefusedLimit, scope: LimitScope, decision: { exceedsLimit: boolean; retryAfterMs: number }): Refusal {
  return { limit, scope, exceedsLimit: decision.exceedsLimit, retryAfterMs: decision.retryAfterMs };
}

function waited(limit: RefusedLimit, scope: LimitScope, wait: number): Refusal {
  return wait === NEVER ? { limit, scope, exceedsLimit: true, retryAfterMs: 0 } : { limit, scope, exceedsLimit: false, retryAfterMs: wait };
}

/** The window with `charged` units added to the current slot (0 for a refusal), without changing it. */
function windowAfter(window: SlotWindow | undefined, limit: number, charged: number, slot: number, now: number): WindowState {
  const total = (window?.total ?? 0) + charged;
  const newest = charged > 0 ? Math.max(window?.newest ?? slot, slot) : window?.newest;
  return describeWindow(limit, total, newest, now);
}

/** The window a client should heed: fewer units left, then the longer reset; the tenant on a tie. */
function tighter(current: WindowState | undefined, candidate: WindowState): WindowState {
  if (current === undefined) return candidate;
  if (candidate.remaining < current.remaining) return candidate;
  if (candidate.remaining === current.remaining && candidate.resetMs > current.resetMs) return candidate;
  return current;
}
