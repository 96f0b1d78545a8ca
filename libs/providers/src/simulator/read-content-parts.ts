import { asArray, asObject, asString } from './json-access.ts';

export interface ContentReading {
  text: string;
  media: number;
}

/**
 * OpenAI-style `content`: a string or a list of parts. Text parts (and refusals) give the
 * text; parts of the given media types are only counted.
 */
export function readContentParts(content: unknown, mediaPartTypes: ReadonlySet<string>): ContentReading {
  if (typeof content === 'string') return { text: content, media: 0 };
  let text = '';
  let media = 0;
  for (const part of asArray(content)) {
    const object = asObject(part);
    if (object === undefined) continue;
    const partText = asString(object.text) ?? asString(object.refusal);
    if (partText !== undefined) text += text === '' ? partText : ' ' + partText;
    else if (mediaPartTypes.has(asString(object.type) ?? '')) media += 1;
  }
  return { text, media };
}
