import type { CanonicalUsage } from '@switchyard/canonical';
import { NATURAL } from '../shared/index.ts';
import { convertToCanonicalUsage } from './convert-usage.ts';

const COUNT = `(${NATURAL})`;

/**
 * OpenAI's usage object as its API writes it: counts only, compact, in its key order. Four
 * groups: prompt, completion, cached and reasoning tokens (the last two absent when their
 * details object is). Shared by the readers of an answer's and of a usage chunk's text, which
 * take this layout and leave every other to the parse.
 */
export const USAGE_OBJECT =
  `\\{"prompt_tokens":${COUNT},"completion_tokens":${COUNT},"total_tokens":${NATURAL}` +
  `(?:,"prompt_tokens_details":\\{"cached_tokens":${COUNT}(?:,"audio_tokens":${NATURAL})?\\})?` +
  `(?:,"completion_tokens_details":\\{"reasoning_tokens":${COUNT}(?:,"audio_tokens":${NATURAL})?` +
  `(?:,"accepted_prediction_tokens":${NATURAL})?(?:,"rejected_prediction_tokens":${NATURAL})?\\})?\\}`;

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
