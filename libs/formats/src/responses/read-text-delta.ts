import { endsLikeObject, leadingTypeStartingWith, unescapeJsonString } from '../shared/index.ts';

const OUTPUT_TEXT_DELTA = leadingTypeStartingWith('response.output_text.delta"');
/** A compact `"delta"` key with a string value, still JSON-escaped; no raw control character, as in JSON. */
const DELTA = /"delta":"([^"\\\p{Cc}]*(?:\\.[^"\\\p{Cc}]*)*)"/u;
const DELTA_KEY = '"delta"';

/**
 * The text of a `response.output_text.delta` event (most events of an answer), read without
 * `JSON.parse`, which was most of the decoder's cost per event (docs/performance.md). The
 * event must be written with `type` first and one compact `"delta":"…"` key, as the Responses
 * API writes it; `undefined` for any other event, or one written differently, which the caller
 * then parses in full. Content cannot fool the key checks: quotes inside JSON strings are
 * escaped (shared/json-text.ts). A second `"delta"` anywhere goes to the full parse.
 */
export function readTextDelta(data: string): string | undefined {
  if (!OUTPUT_TEXT_DELTA.test(data) || !endsLikeObject(data)) return undefined;
  const match = DELTA.exec(data);
  if (match === null || data.indexOf(DELTA_KEY) !== match.index || data.includes(DELTA_KEY, match.index + match[0].length)) return undefined;
  return unescapeJsonString(match[1] as string);
}
