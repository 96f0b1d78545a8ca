import type { CanonicalUsage } from '@switchyard/canonical';
import { convertToCanonicalUsage } from './convert-usage.ts';

const COUNT = '(0|[1-9]\\d*)';
/** A token count or timestamp as JSON writes it, not captured. */
export const ANY_COUNT = '(?:0|[1-9]\\d*)';

/**
 * OpenAI's usage object as its API writes it: counts only, compact, in its key order. Four
 * groups: prompt, completion, cached and reasoning tokens (the last two absent when their
 * details object is). Shared by the readers of an answer's and of a usage chunk's text, which
 * take this layout and leave every other to the parse.
 */
export const USAGE_OBJECT =
  `\\{"prompt_tokens":${COUNT},"completion_tokens":${COUNT},"total_tokens":${ANY_COUNT}` +
  `(?:,"prompt_tokens_details":\\{"cached_tokens":${COUNT}(?:,"audio_tokens":${ANY_COUNT})?\\})?` +
  `(?:,"completion_tokens_details":\\{"reasoning_tokens":${COUNT}(?:,"audio_tokens":${ANY_COUNT})?` +
  `(?:,"accepted_prediction_tokens":${ANY_COUNT})?(?:,"rejected_prediction_tokens":${ANY_COUNT})?\\})?\\}`;

/** The usage held by the four USAGE_OBJECT groups of `match`, which has no groups before them. */
export function usageOfMatch(match: RegExpExecArray): CanonicalUsage {
  const [, prompt, completion, cached, reasoning] = match;
  return convertToCanonicalUsage({
    prompt_tokens: Number(prompt),
    completion_tokens: Number(completion),
    prompt_tokens_details: cached === undefined ? undefined : { cached_tokens: Number(cached) },
    completion_tokens_details: reasoning === undefined ? undefined : { reasoning_tokens: Number(reasoning) },
  });
}
