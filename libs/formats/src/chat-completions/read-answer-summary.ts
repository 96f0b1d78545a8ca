import { NATURAL, readAnswerByLayout, type AnswerLayout } from '../shared/index.ts';
import type { ResponseSummary } from '../wire-format.ts';
import { USAGE_OBJECT, usageOfMatch } from './usage-pattern.ts';

/** OpenAI's answer layout (and the simulator's, and many compatible servers'). */
const OPENAI_ANSWER: AnswerLayout = {
  /** Compact, model fourth. */
  head: new RegExp(`^\\{"id":"[^"\\\\]*","object":"chat\\.completion","created":${NATURAL},"model":"([^"\\\\]*)",`),
  /** The usage object in OpenAI's own shape (usage-pattern.ts), then at most `service_tier` and `system_fingerprint`. */
  tail: new RegExp(`,"usage":${USAGE_OBJECT}(?:,"(?:service_tier|system_fingerprint)":(?:"[^"\\\\]*"|null))*\\}[ \\t\\n\\r]*$`, 'y'),
  usageOf: usageOfMatch,
};

/** Usage and model of a same-format answer in OpenAI's layout, read from its text (shared/read-answer-by-layout.ts). */
export function readAnswerSummary(text: string): ResponseSummary | undefined {
  return readAnswerByLayout(text, OPENAI_ANSWER);
}
