import type { ReasoningEffort, ReasoningOptions } from '@switchyard/canonical';

/**
 * Effort ↔ budget, protocols.md §10.7. Vendors define no mapping; these numbers are our policy
 * (docs/translation.md): `low` is the messages API minimum, `high` leaves room for long answers.
 */
const BUDGET_FOR_EFFORT: Record<ReasoningEffort, number> = {
  none: 0,
  minimal: 1024,
  low: 1024,
  medium: 8192,
  high: 16384,
  xhigh: 24576,
  max: 32768,
};

export function budgetForEffort(effort: ReasoningEffort): number {
  return BUDGET_FOR_EFFORT[effort];
}

/** budget < 2048 → low, < 12288 → medium, else high; -1 (dynamic) → medium; 0 → none. */
export function effortForBudget(budget: number): ReasoningEffort {
  if (budget === 0) return 'none';
  if (budget < 0) return 'medium';
  if (budget < 2048) return 'low';
  if (budget < 12288) return 'medium';
  return 'high';
}

/** The budget a target that speaks budgets should use, whichever way the client spoke. */
export function reasoningBudget(reasoning: ReasoningOptions): number | undefined {
  if (reasoning.budgetTokens !== undefined) return reasoning.budgetTokens;
  if (reasoning.effort !== undefined) return budgetForEffort(reasoning.effort);
  return undefined;
}

/** The effort a target that speaks efforts should use, whichever way the client spoke. */
export function reasoningEffort(reasoning: ReasoningOptions): ReasoningEffort | undefined {
  if (reasoning.effort !== undefined) return reasoning.effort;
  if (reasoning.budgetTokens !== undefined) return effortForBudget(reasoning.budgetTokens);
  return undefined;
}
