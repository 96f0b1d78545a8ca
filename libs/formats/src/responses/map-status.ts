import type { FinishReason } from '@switchyard/canonical';

/** `status` and `incomplete_details` of a Responses answer: it has no finish reason field (protocols.md §4.2). */
export interface ResponseOutcome {
  status: 'completed' | 'incomplete' | 'failed';
  incompleteDetails: { reason: 'max_output_tokens' | 'content_filter' } | null;
}

/**
 * Derives the finish reason from `status`, `incomplete_details.reason` and whether the output
 * holds function calls (protocols.md §10.5). `raw` keeps the vendor's most specific value.
 * A `failed` response is an error, not a finish reason; callers turn it into an error part.
 */
export function mapStatusToFinishReason(
  status: string | undefined,
  incompleteReason: string | undefined,
  hasFunctionCalls: boolean,
): FinishReason {
  if (status === 'incomplete') {
    const raw = incompleteReason ?? status;
    if (incompleteReason === 'max_output_tokens') return { unified: 'length', raw };
    if (incompleteReason === 'content_filter') return { unified: 'content-filter', raw };
    return { unified: 'other', raw };
  }
  if (status === 'completed') return { unified: hasFunctionCalls ? 'tool-calls' : 'stop', raw: status };
  return status === undefined ? { unified: 'other' } : { unified: 'other', raw: status };
}

export function mapFinishReasonToOutcome(finishReason: FinishReason): ResponseOutcome {
  switch (finishReason.unified) {
    case 'length':
      return { status: 'incomplete', incompleteDetails: { reason: 'max_output_tokens' } };
    case 'content-filter':
      return { status: 'incomplete', incompleteDetails: { reason: 'content_filter' } };
    case 'error':
      return { status: 'failed', incompleteDetails: null };
    case 'stop':
    case 'tool-calls':
    case 'other':
      return { status: 'completed', incompleteDetails: null };
    default: {
      const exhaustive: never = finishReason.unified;
      return exhaustive;
    }
  }
}
