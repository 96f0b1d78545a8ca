/**
 * String checks on one stream event's JSON text, for the same-format relay that must not parse
 * every event (docs/performance.md). They are pre-checks: "no" must be certain, "maybe" only
 * costs a parse that then decides.
 *
 * Why content cannot fool them: inside a JSON string every `"` is escaped as `\"`, so the text
 * `"usage"` followed by optional blanks and `:` can only be an object key (a string value is
 * followed by `,`, `}` or `]`). Generated text, reasoning or tool arguments therefore cannot
 * make a key appear or disappear; at worst a nested key of the same name (or a model-chosen
 * object key ending in `\"usage`) says "maybe". Likewise an event's text can only start with
 * `{"type":"` when `type` is its first key. Keys are assumed written literally, without `\u`
 * escapes, as every encoder writes them.
 *
 * The checks are compiled regular expressions: V8 runs one in a single native pass, where each
 * `indexOf` or `startsWith` on a short string costs about as much as the whole check.
 */

const BLANK = '[ \\t\\n\\r]';

/** Pattern source: a JSON string without escapes (on one line, as every JSON string is). */
export const PLAIN_STRING = '"[^"\\\\\\n\\r]*"';

/** Pattern source: a JSON natural number (a token count, a timestamp, an index), not captured. */
export const NATURAL = '(?:0|[1-9]\\d*)';

/** `text` as a literal inside a regular expression. */
export function escapeForPattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A pattern that finds any of `keys` with a value other than null, at any depth: it fails only
 * when every occurrence of every key is followed by `null` (in valid JSON a value starting with
 * `n` is null) or is no key at all. Built once per module, used with `test`.
 */
export function nonNullKeyPattern(keys: readonly string[]): RegExp {
  const names = keys.map(escapeForPattern).join('|');
  return new RegExp(`"(?:${names})"${BLANK}*:${BLANK}*[^ \\t\\n\\rn]`);
}

/**
 * A pattern that matches an event written `{"type":"…"` (its first key, compact, as the
 * messages and Responses APIs write every event) whose type is none of `types`, read without
 * an escape in it. Parsing would read the same type unless a later duplicate `type` key
 * overrode it, which no encoder writes.
 */
export function leadingTypeOtherThan(types: readonly string[]): RegExp {
  const names = types.map(escapeForPattern).join('|');
  return new RegExp(`^\\{"type":"(?!(?:${names})")[^"\\\\]*"`);
}

/** A pattern that matches an event written `{"type":"<prefix>…` (see leadingTypeOtherThan). */
export function leadingTypeStartingWith(prefix: string): RegExp {
  return new RegExp(`^\\{"type":"${escapeForPattern(prefix)}`);
}

const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;

/** `{…}` at both ends: what a well-formed object event looks like without parsing it. */
export function looksLikeObject(data: string): boolean {
  return data.charCodeAt(0) === OPEN_BRACE && data.charCodeAt(data.length - 1) === CLOSE_BRACE;
}

/** `…}` at the end (the start is checked by a leading-type pattern). */
export function endsLikeObject(data: string): boolean {
  return data.charCodeAt(data.length - 1) === CLOSE_BRACE;
}

/**
 * The text of a JSON string read out of an event's JSON text still escaped (what is between the
 * quotes): unescaped, or undefined when an escape is invalid. Most deltas hold no escape and are
 * returned as they are.
 */
export function unescapeJsonString(escaped: string): string | undefined {
  if (!escaped.includes('\\')) return escaped;
  try {
    return JSON.parse(`"${escaped}"`) as string;
  } catch {
    return undefined;
  }
}
