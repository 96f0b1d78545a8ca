import type { CanonicalUsage } from '@switchyard/canonical';
import type { ResponseSummary } from '../wire-format.ts';

/** A vendor's answer layout, as read-answer-by-layout reads it. */
export interface AnswerLayout {
  /** How the answer starts, anchored at its start; group 1 is the model. */
  head: RegExp;
  /** How it ends from its last `,"usage":`, sticky, anchored at the end of the text. */
  tail: RegExp;
  /** The usage the tail's groups hold. */
  usageOf(tail: RegExpExecArray): CanonicalUsage;
}

const USAGE_KEY = ',"usage":';
const MODEL_KEY = '"model":';

/**
 * Usage and model of a same-format answer read from its text in the vendor's own layout,
 * without `JSON.parse`: the parse of the whole answer, only to read a few numbers from its
 * end, was the router's largest cost on a non-streaming request (docs/performance.md). Any
 * other layout (another key order, spaces, a usage key the layout does not know) is
 * `undefined`, and the caller parses the answer and summarises that, so an unusual answer costs
 * the parse, never a wrong number.
 *
 * Why the text cannot mislead it: a `"` inside a JSON string is escaped, so `,"usage":` and
 * `"model":` can only be keys. The tail is anchored at the end of the text with one closing
 * brace after the usage object, so that `usage` is a key of the outermost object, and the last
 * one, as JSON.parse would keep it; a second `model` key anywhere goes to the parse. The middle
 * of the answer is not checked: it is relayed as the upstream sent it, which is what the same
 * format promises. A cut-off answer does not end this way and is parsed (and refused).
 */
export function readAnswerByLayout(text: string, layout: AnswerLayout): ResponseSummary | undefined {
  const head = layout.head.exec(text);
  if (head === null) return undefined;
  const at = text.lastIndexOf(USAGE_KEY);
  if (at < head[0].length || text.includes(MODEL_KEY, head[0].length)) return undefined;
  layout.tail.lastIndex = at;
  const tail = layout.tail.exec(text);
  if (tail === null) return undefined;
  return { usage: layout.usageOf(tail), model: head[1] as string };
}
