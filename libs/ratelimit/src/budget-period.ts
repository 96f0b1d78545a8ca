import { EXPIRY_MARGIN_MS } from './constants.ts';

export const DAY_MS = 86_400_000;

/** The UTC day and month a moment falls in, and how far away the next of each is. */
export interface BudgetPeriods {
  /** Days since the epoch. */
  day: number;
  /** year × 12 + month (0-based). */
  month: number;
  msUntilNextDay: number;
  msUntilNextMonth: number;
}

/** Tokens charged in the current day and month of one scope. */
export interface BudgetUsage {
  dayUsed: number;
  monthUsed: number;
}

/** What a budget store holds: counters tagged with the period they count. */
export interface StoredBudget extends BudgetUsage {
  day: number;
  month: number;
}

/** The calendar of the last day asked for: admissions ask many times a second, the month changes once a month. */
let calendarDay = Number.NaN;
let calendarMonth = 0;
let nextMonthStart = 0;

export function budgetPeriods(now: number): BudgetPeriods {
  const day = Math.floor(now / DAY_MS);
  if (day !== calendarDay) {
    const date = new Date(now);
    calendarDay = day;
    calendarMonth = date.getUTCFullYear() * 12 + date.getUTCMonth();
    nextMonthStart = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  }
  return {
    day,
    month: calendarMonth,
    msUntilNextDay: (day + 1) * DAY_MS - now,
    msUntilNextMonth: nextMonthStart - now,
  };
}

/** A counter from an earlier day or month counts nothing: that is how budgets reset. */
export function currentUsage(stored: StoredBudget | undefined, periods: BudgetPeriods): BudgetUsage {
  return {
    dayUsed: stored !== undefined && stored.day === periods.day ? stored.dayUsed : 0,
    monthUsed: stored !== undefined && stored.month === periods.month ? stored.monthUsed : 0,
  };
}

export function chargeUsage(usage: BudgetUsage, delta: number): BudgetUsage {
  return { dayUsed: Math.max(0, usage.dayUsed + delta), monthUsed: Math.max(0, usage.monthUsed + delta) };
}

export interface BudgetDecision {
  allowed: boolean;
  exceedsLimit: boolean;
  retryAfterMs: number;
}

/** A spent budget admits again when its period ends, never before. */
export function admitToBudget(used: number, budget: number, cost: number, msUntilReset: number): BudgetDecision {
  if (budget === 0 || cost > budget) return { allowed: false, exceedsLimit: true, retryAfterMs: 0 };
  if (used + cost <= budget) return { allowed: true, exceedsLimit: false, retryAfterMs: 0 };
  return { allowed: false, exceedsLimit: false, retryAfterMs: msUntilReset };
}

/** Counters are worthless once their month is over (the day counter ends no later). */
export function budgetTtlMs(periods: BudgetPeriods): number {
  return periods.msUntilNextMonth + EXPIRY_MARGIN_MS;
}
