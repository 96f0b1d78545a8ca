import { NATURAL, PLAIN_STRING as STRING, readAnswerByLayout, type AnswerLayout } from '../shared/index.ts';
import type { ResponseSummary } from '../wire-format.ts';
import { convertUsageToCanonical } from './convert-usage.ts';

const COUNT_OR_NULL = `(${NATURAL}|null)`;

/** Anthropic's answer layout (and the simulator's). */
const ANTHROPIC_ANSWER: AnswerLayout = {
  /** Compact, model fourth. */
  head: new RegExp(`^\\{"id":${STRING},"type":"message","role":"assistant","model":"([^"\\\\\\n\\r]*)",`),
  /**
   * The usage object as the API writes it (the counts, the cache-creation split, the service
   * tier, in its key order), then the answer's closing brace. Four groups: input, cache-creation
   * input, cache-read input and output tokens.
   */
  tail: new RegExp(
    `,"usage":\\{"input_tokens":${COUNT_OR_NULL}(?:,"cache_creation_input_tokens":${COUNT_OR_NULL})?` +
      `(?:,"cache_read_input_tokens":${COUNT_OR_NULL})?` +
      `(?:,"cache_creation":\\{"ephemeral_5m_input_tokens":${NATURAL},"ephemeral_1h_input_tokens":${NATURAL}\\})?` +
      `,"output_tokens":${COUNT_OR_NULL}(?:,"service_tier":(?:${STRING}|null))?\\}\\}[ \\t\\n\\r]*$`,
    'y',
  ),
  usageOf: ([, input, cacheWrite, cacheRead, output]) =>
    convertUsageToCanonical({
      input_tokens: countOf(input),
      cache_creation_input_tokens: countOf(cacheWrite),
      cache_read_input_tokens: countOf(cacheRead),
      output_tokens: countOf(output),
    }),
};

/** A captured count as the parse reads it: absent, null or a number. */
function countOf(text: string | undefined): number | null | undefined {
  if (text === undefined) return undefined;
  return text === 'null' ? null : Number(text);
}

/**
 * Usage and model of a same-format answer in Anthropic's layout, read from its text
 * (shared/read-answer-by-layout.ts). A usage key the layout does not know (thinking tokens,
 * server tool use) sends the answer to the parse, and so does a tool input holding a `model` key.
 */
export function readAnswerSummary(text: string): ResponseSummary | undefined {
  return readAnswerByLayout(text, ANTHROPIC_ANSWER);
}
