/**
 * String checks on one stream event's JSON text, for the same-format relay that must not parse
 * every event (docs/performance.md). They are pre-checks: "no" must be certain, "maybe" only
 * costs a parse that then decides.
 *
 * Why content cannot fool them: inside a JSON string every `"` is escaped as `\"`, so the text
 * `"usage"` followed by optional blanks and `:` can only be an object key (a string value is
 * followed by `,`, `}` or `]`). Generated text, reasoning or tool arguments therefore cannot
 * make a key appear or disappear; at worst a nested key of the same name (or a model-chosen
 * object key ending in `\"usage`) says "maybe". Keys are assumed written literally, without
 * `\u` escapes, as every encoder writes them.
 */

const COLON = 0x3a;
const LETTER_N = 0x6e;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function skipBlanks(text: string, from: number): number {
  let index = from;
  for (;;) {
    const code = text.charCodeAt(index);
    // JSON's four blank characters: space, tab, line feed, carriage return.
    if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return index;
    index++;
  }
}

/**
 * Whether the JSON text may hold `quotedKey` (written with its quotes: `'"usage"'`) with a
 * value other than null, at any depth. False only when every occurrence of the key is
 * followed by `null` (in valid JSON a value starting with `n` is null) or is no key at all.
 */
export function mayHaveNonNullKey(data: string, quotedKey: string): boolean {
  let at = data.indexOf(quotedKey);
  while (at !== -1) {
    const colon = skipBlanks(data, at + quotedKey.length);
    if (data.charCodeAt(colon) === COLON && data.charCodeAt(skipBlanks(data, colon + 1)) !== LETTER_N) return true;
    at = data.indexOf(quotedKey, at + quotedKey.length);
  }
  return false;
}

/** `{…}` at both ends: what a well-formed object event looks like without parsing it. */
export function looksLikeObject(data: string): boolean {
  return data.charCodeAt(0) === OPEN_BRACE && data.charCodeAt(data.length - 1) === CLOSE_BRACE;
}

const TYPE_PREFIX = '{"type":"';

/**
 * The `type` of an event written `{"type":"…",` (its first key, compact, as the messages and
 * Responses APIs write every event), or undefined when the text does not start that way or the
 * value holds an escape. Parsing would read the same value unless a later duplicate `type` key
 * overrides it, which no encoder writes.
 */
export function leadingType(data: string): string | undefined {
  if (!data.startsWith(TYPE_PREFIX)) return undefined;
  for (let index = TYPE_PREFIX.length; index < data.length; index++) {
    const code = data.charCodeAt(index);
    if (code === QUOTE) return data.slice(TYPE_PREFIX.length, index);
    if (code === BACKSLASH) return undefined;
  }
  return undefined;
}
