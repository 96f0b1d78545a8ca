import type { SseEvent } from '@switchyard/sse';
import { looksLikeObject, nonNullKeyPattern, unescapeJsonString } from '../shared/index.ts';

/** Keys that make a chunk more than a text delta: such chunks are parsed in full. */
const BEYOND_TEXT = nonNullKeyPattern(['finish_reason', 'usage', 'error', 'tool_calls', 'refusal', 'reasoning_content', 'reasoning']);

/**
 * A content chunk whole, laid out as OpenAI writes it (and our own encoder, and many compatible
 * servers): compact, keys in this order, the optional ones only with the values shown. Anchored
 * at both ends, so it matches only chunks that say nothing beyond their text, and it reads them
 * in one pass; any other layout takes the key checks below.
 */
const COMPACT_CONTENT_CHUNK =
  /^\{"id":"[^"\\]*","object":"chat\.completion\.chunk","created":\d+,"model":"[^"\\]*",(?:"service_tier":"[^"\\]*",)?(?:"system_fingerprint":(?:"[^"\\]*"|null),)?"choices":\[\{"index":0,"delta":\{(?:"role":"assistant",)?"content":"([^"\\\p{Cc}]*(?:\\.[^"\\\p{Cc}]*)*)"(?:,"refusal":null)?\},(?:"logprobs":null,)?"finish_reason":null\}\](?:,"usage":null)?(?:,"obfuscation":"[^"\\]*")?\}$/u;

/** The string value of a `content` key, still JSON-escaped. */
const CONTENT = /"content"[ \t\n\r]*:[ \t\n\r]*"([^"\\]*(?:\\.[^"\\]*)*)"/;
const CONTENT_KEY = '"content"';

/**
 * The text of a chunk that carries nothing but a content delta (most chunks of a stream),
 * read without `JSON.parse`, which was most of the decoder's cost per event
 * (docs/performance.md). `''` for a chunk without text (a role-only delta); `undefined` when
 * the chunk may say more, or anything is unusual — the caller then parses it in full, so a
 * "maybe" here only costs the parse. Content cannot fool the key checks: quotes inside JSON
 * strings are escaped (shared/json-text.ts). One string-valued `content` key is required, as
 * one choice is all translation reads; a second occurrence goes to the full parse.
 */
export function readTextDelta(event: SseEvent): string | undefined {
  const data = event.data;
  if (event.event !== undefined) return undefined;
  const compact = COMPACT_CONTENT_CHUNK.exec(data);
  if (compact !== null) return unescapeJsonString(compact[1] as string);
  if (!looksLikeObject(data) || BEYOND_TEXT.test(data)) return undefined;
  const first = data.indexOf(CONTENT_KEY);
  if (first === -1) return '';
  const match = CONTENT.exec(data);
  if (match === null || match.index !== first || data.includes(CONTENT_KEY, first + match[0].length)) return undefined;
  return unescapeJsonString(match[1] as string);
}
