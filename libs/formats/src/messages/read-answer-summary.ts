import type { ResponseSummary } from '../wire-format.ts';
import { convertUsageToCanonical } from './convert-usage.ts';

const STRING = '"[^"\\\\\\n\\r]*"';
const COUNT = '(0|[1-9]\\d*)';
const ANY_COUNT = '(?:0|[1-9]\\d*)';
const COUNT_OR_NULL = '(0|[1-9]\\d*|null)';

/** How an answer starts as Anthropic writes it (and the simulator): compact, model fourth. */
const HEAD = new RegExp(`^\\{"id":${STRING},"type":"message","role":"assistant","model":"([^"\\\\\\n\\r]*)",`);

/**
 * How it ends, from its `usage` key: the usage object as the API writes it (the counts, the
 * cache-creation split, the service tier, in its key order), then the answer's closing brace.
 * Four groups: input, cache-creation input, cache-read input and output tokens. Sticky, so it is
 * tried only where the last `,"usage":` is.
 */
const TAIL = new RegExp(
  `,"usage":\\{"input_tokens":${COUNT_OR_NULL}(?:,"cache_creation_input_tokens":${COUNT_OR_NULL})?` +
    `(?:,"cache_read_input_tokens":${COUNT_OR_NULL})?` +
    `(?:,"cache_creation":\\{"ephemeral_5m_input_tokens":${ANY_COUNT},"ephemeral_1h_input_tokens":${ANY_COUNT}\\})?` +
    `,"output_tokens":${COUNT}(?:,"service_tier":(?:${STRING}|null))?\\}\\}[ \\t\\n\\r]*$`,
  'y',
);

const USAGE_KEY = ',"usage":';
const MODEL_KEY = '"model":';

/**
 * Usage and model of a same-format messages answer read from its text, without `JSON.parse`
 * (as chat-completions/read-answer-summary.ts reads OpenAI's): only the layout above is read;
 * anything else — another key order, spaces, a usage key this does not know (thinking tokens,
 * server tool use) — is `undefined`, and the caller parses the answer and summarises that, so
 * an unusual answer costs the parse, never a wrong number.
 *
 * Why the text cannot mislead it: a `"` inside a JSON string is escaped, so `,"usage":` and
 * `"model":` can only be keys. The tail is anchored at the end of the text with one closing
 * brace after the usage object, so that `usage` is a key of the outermost object, and the last
 * one, as JSON.parse would keep it; a second `model` key anywhere (a tool's input may hold one)
 * goes to the parse. The middle of the answer is not checked: it is relayed as the upstream
 * sent it, which is what the same format promises. A cut-off answer does not end this way and
 * is parsed (and refused).
 */
export function readAnswerSummary(text: string): ResponseSummary | undefined {
  const head = HEAD.exec(text);
  if (head === null) return undefined;
  const at = text.lastIndexOf(USAGE_KEY);
  if (at < head[0].length || text.includes(MODEL_KEY, head[0].length)) return undefined;
  TAIL.lastIndex = at;
  const tail = TAIL.exec(text);
  if (tail === null) return undefined;
  const [, input, cacheWrite, cacheRead, output] = tail;
  const usage = convertUsageToCanonical({
    input_tokens: countOf(input),
    cache_creation_input_tokens: countOf(cacheWrite),
    cache_read_input_tokens: countOf(cacheRead),
    output_tokens: countOf(output),
  });
  return { usage, model: head[1] as string };
}

/** A captured count as the parse reads it: absent, null or a number. */
function countOf(text: string | undefined): number | null | undefined {
  if (text === undefined) return undefined;
  return text === 'null' ? null : Number(text);
}
