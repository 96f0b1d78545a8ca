import type { CanonicalRequest, ReasoningOptions } from '@switchyard/canonical';
import { budgetForEffort, effortForBudget, reasoningBudget } from '../shared/index.ts';
import type { MessagesTurn } from './convert-messages.ts';
import type { OutputConfigParam, ThinkingParam } from './schema.ts';

/** The API minimum for `budget_tokens` (protocols.md §5.1, §12.18). */
const MIN_THINKING_BUDGET = 1024;

// ── messages → canonical ────────────────────────────────────────────────────────────────

/**
 * `thinking` speaks budgets, `output_config.effort` speaks efforts; both land in one
 * ReasoningOptions. `adaptive` lets the model choose, which §10.7 reads as `medium` unless an
 * explicit effort says otherwise. `disabled` is the API default, so it sets nothing.
 */
export function convertThinkingToCanonical(
  thinking: ThinkingParam | undefined,
  outputConfig: OutputConfigParam | undefined,
): ReasoningOptions | undefined {
  let reasoning: ReasoningOptions | undefined;
  if (thinking !== undefined && thinking.type !== 'disabled') {
    reasoning = thinking.type === 'enabled' ? { budgetTokens: thinking.budget_tokens } : { effort: 'medium' };
    // `display: "omitted"` still thinks but returns no thinking text.
    reasoning.includeThoughts = thinking.display !== 'omitted';
  }
  const effort = outputConfig?.effort;
  if (effort !== undefined && effort !== null) reasoning = { ...reasoning, effort };
  return reasoning;
}

// ── canonical → messages ────────────────────────────────────────────────────────────────

export interface EncodedThinking {
  thinking?: { type: 'enabled'; budget_tokens: number };
  maxTokens: number;
}

/**
 * With thinking on, messages requires the last assistant turn of a tool loop to start with its
 * thinking block. A conversation from another format has none to replay, so thinking must go.
 */
function lacksThinkingReplay(turns: MessagesTurn[]): boolean {
  const lastAssistant = turns.findLast((turn) => turn.role === 'assistant');
  if (lastAssistant === undefined || !lastAssistant.content.some((block) => block.type === 'tool_use')) return false;
  const first = lastAssistant.content[0]?.type;
  return first !== 'thinking' && first !== 'redacted_thinking';
}

/**
 * Budgets come from the shared effort table (dynamic `-1` counts as `medium`) and are raised to
 * the API minimum. messages requires `budget_tokens < max_tokens`, so max_tokens is raised to
 * leave 1024 tokens of answer — but not past the model's output limit, where the budget shrinks
 * instead. Thinking with a forced tool choice is rejected by the API (§10.7), so it is dropped,
 * as it is when the tool loop in progress cannot replay its thinking.
 */
export function encodeThinking(
  request: CanonicalRequest,
  turns: MessagesTurn[],
  maxTokens: number,
  modelOutputLimit: number | undefined,
  warnings: string[],
): EncodedThinking {
  const requested = request.reasoning === undefined ? undefined : reasoningBudget(request.reasoning);
  if (requested === undefined || requested === 0) return { maxTokens };
  if (request.toolChoice?.type === 'required' || request.toolChoice?.type === 'tool') {
    warnings.push('Reasoning was dropped: messages does not allow thinking while a tool choice is forced.');
    return { maxTokens };
  }
  if (lacksThinkingReplay(turns)) {
    warnings.push('Reasoning was dropped: the last assistant tool call has no messages thinking block to replay.');
    return { maxTokens };
  }
  const budget = Math.max(MIN_THINKING_BUDGET, requested < 0 ? budgetForEffort(effortForBudget(requested)) : requested);
  if (budget < maxTokens) return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens };
  const raised = budget + MIN_THINKING_BUDGET;
  if (modelOutputLimit !== undefined && raised > modelOutputLimit) {
    const reduced = modelOutputLimit - MIN_THINKING_BUDGET;
    if (reduced < MIN_THINKING_BUDGET) {
      warnings.push(`Reasoning was dropped: an output limit of ${modelOutputLimit} tokens leaves no room for thinking.`);
      return { maxTokens };
    }
    warnings.push(
      `The thinking budget was reduced to ${reduced} tokens and max_tokens set to the model's output limit of ${modelOutputLimit}.`,
    );
    return { thinking: { type: 'enabled', budget_tokens: reduced }, maxTokens: modelOutputLimit };
  }
  warnings.push(`max_tokens was raised from ${maxTokens} to ${raised} to exceed the thinking budget of ${budget} tokens.`);
  return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens: raised };
}
