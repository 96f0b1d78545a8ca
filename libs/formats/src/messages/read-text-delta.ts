import { unescapeJsonString } from '../shared/index.ts';

/**
 * A text `content_block_delta` written as the messages API writes it: compact, its keys in this
 * order, nothing else in it. Anchored at both ends, so an event that says anything more cannot
 * match; a number has no leading zero, as in JSON, and a string no raw control character (JSON
 * allows DEL and the C1 controls raw, which then only go to the full parse).
 */
const TEXT_DELTA = /^\{"type":"content_block_delta","index":(0|[1-9]\d{0,8}),"delta":\{"type":"text_delta","text":"([^"\\\p{Cc}]*(?:\\.[^"\\\p{Cc}]*)*)"\}\}$/u;

export interface TextDelta {
  /** The content block's index. */
  index: number;
  text: string;
}

/**
 * The block index and text of a text delta event (most events of an answer), read without
 * `JSON.parse`, which was most of the decoder's cost per event (docs/performance.md).
 * `undefined` for any other event, or one written differently (another key order, blanks, an
 * extra field): the caller then parses it in full, so an unusual upstream costs only the parse.
 */
export function readTextDelta(data: string): TextDelta | undefined {
  const match = TEXT_DELTA.exec(data);
  if (match === null) return undefined;
  const text = unescapeJsonString(match[2] as string);
  return text === undefined ? undefined : { index: Number(match[1]), text };
}
