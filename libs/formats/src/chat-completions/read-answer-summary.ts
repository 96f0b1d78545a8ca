import type { ResponseSummary } from '../wire-format.ts';
import { ANY_COUNT, USAGE_OBJECT, usageOfMatch } from './usage-pattern.ts';

/** How an answer starts as OpenAI writes it (and the simulator, and many compatible servers): compact, model fourth. */
const HEAD = new RegExp(`^\\{"id":"[^"\\\\]*","object":"chat\\.completion","created":${ANY_COUNT},"model":"([^"\\\\]*)",`);

/**
 * How it ends, from its `usage` key: the usage object in OpenAI's own shape (usage-pattern.ts),
 * then at most `service_tier` and `system_fingerprint`, then the answer's closing brace.
 * Sticky, so it is tried only where the last `,"usage":` is.
 */
const TAIL = new RegExp(`,"usage":${USAGE_OBJECT}(?:,"(?:service_tier|system_fingerprint)":(?:"[^"\\\\]*"|null))*\\}[ \\t\\n\\r]*$`, 'y');

const USAGE_KEY = ',"usage":';
const MODEL_KEY = '"model":';

/**
 * Usage and model of a same-format answer read from its text, without `JSON.parse`: the
 * parse of the whole answer, only to read a dozen numbers from its end, was the router's
 * largest cost on a non-streaming request (docs/performance.md). Only the layout above is
 * read; anything else — another key order, spaces, a key this does not know — is `undefined`,
 * and the caller parses the answer and summarises that, so an unusual answer costs the parse,
 * never a wrong number.
 *
 * Why the text cannot mislead it: a `"` inside a JSON string is escaped, so `,"usage":` and
 * `"model":` can only be keys. The tail is anchored at the end of the text with one closing
 * brace after the usage object, so that `usage` is a key of the outermost object, and the last
 * one, as JSON.parse would keep it; a second `model` key anywhere goes to the parse. The middle
 * of the answer is not checked: it is relayed as the upstream sent it, which is what the same
 * format promises. A cut-off answer does not end this way and is parsed (and refused).
 */
export function readAnswerSummary(text: string): ResponseSummary | undefined {
  const head = HEAD.exec(text);
  if (head === null) return undefined;
  const at = text.lastIndexOf(USAGE_KEY);
  if (at < head[0].length || text.includes(MODEL_KEY, head[0].length)) return undefined;
  TAIL.lastIndex = at;
  const tail = TAIL.exec(text);
  if (tail === null) return undefined;
  return { usage: usageOfMatch(tail), model: head[1] as string };
}
