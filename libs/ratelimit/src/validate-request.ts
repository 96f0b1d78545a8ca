import { MAX_LIMIT } from './constants.ts';
import type { LimitSet } from './limiter.ts';

const LIMIT_NAMES = ['rpm', 'tpm', 'concurrency', 'dailyTokens', 'monthlyTokens'] as const;

/** Limits come from validated config; a bad one here is a bug, so it throws rather than guessing. */
export function assertLimitSet(limits: LimitSet, scope: string): void {
  for (const name of LIMIT_NAMES) {
    const value = limits[name];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 0 || value > MAX_LIMIT) {
      throw new RangeError(`${scope} limit ${name} must be an integer from 0 to ${MAX_LIMIT}, got ${value}`);
    }
  }
}

/**
 * Token counts are whole; an estimate is rounded up so a reservation never undercounts. Anything
 * above MAX_LIMIT is refused by every limit alike, so it is capped there to keep levels exact.
 */
export function tokenCost(estimatedTokens: number): number {
  if (!Number.isFinite(estimatedTokens) || estimatedTokens < 0) {
    throw new RangeError(`estimatedTokens must be a finite number >= 0, got ${estimatedTokens}`);
  }
  return Math.min(Math.ceil(estimatedTokens), MAX_LIMIT + 1);
}

/** Capped like `tokenCost`: a correction larger than any limit saturates every bucket anyway. */
export function tokenDelta(deltaTokens: number): number {
  if (!Number.isFinite(deltaTokens)) throw new RangeError(`deltaTokens must be finite, got ${deltaTokens}`);
  return Math.max(-MAX_LIMIT, Math.min(MAX_LIMIT, Math.round(deltaTokens)));
}

/** A reconcile's `admittedAt` is a moment the limiter itself reported: anything else is a bug. */
export function assertAdmittedAt(admittedAt: number | undefined): void {
  if (admittedAt !== undefined && !(Number.isSafeInteger(admittedAt) && admittedAt >= 0)) {
    throw new RangeError(`admittedAt must be a whole number of ms >= 0, got ${admittedAt}`);
  }
}

export function hasBudget(limits: LimitSet): boolean {
  return limits.dailyTokens !== undefined || limits.monthlyTokens !== undefined;
}

export function hasAnyLimit(limits: LimitSet): boolean {
  return limits.rpm !== undefined || limits.tpm !== undefined || limits.concurrency !== undefined || hasBudget(limits);
}
