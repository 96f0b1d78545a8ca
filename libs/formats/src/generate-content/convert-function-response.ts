import type { FilePart, ImagePart, TextPart, ToolResultPart } from '@switchyard/canonical';
import { convertMediaToGemini, fileDataSource, mediaToCanonical, type GeminiPart } from './convert-parts.ts';
import { isRecord } from '../shared/index.ts';
import type { Part } from './schema.ts';

type FunctionResponse = NonNullable<Part['functionResponse']>;

/**
 * `functionResponse` → a tool result whose content is text (protocols.md §10.4). The shapes the
 * docs suggest are unwrapped so other vendors see the tool's own words: `{error: x}` becomes an
 * error result holding x; `{output: "text"}` becomes "text". Any other response, including
 * `{output: <object>}`, is kept whole as JSON text, which convertToolResultToGemini turns back
 * into the same object; an unwrapped non-string error value comes back as a string.
 */
export function convertFunctionResponseToCanonical(functionResponse: FunctionResponse, callId: string): ToolResultPart {
  const response = functionResponse.response ?? {};
  const keys = Object.keys(response);
  const isError = keys.length === 1 && keys[0] === 'error';
  const text = isError
    ? asText(response.error)
    : keys.length === 1 && typeof response.output === 'string'
      ? response.output
      : JSON.stringify(response);
  const media = (functionResponse.parts ?? []).flatMap((part): Array<ImagePart | FilePart> => {
    if (part.inlineData != null) return [mediaToCanonical({ kind: 'base64', mediaType: part.inlineData.mimeType, data: part.inlineData.data })];
    if (part.fileData != null) return [mediaToCanonical(fileDataSource(part.fileData.fileUri, part.fileData.mimeType))];
    return [];
  });
  const content: ToolResultPart['content'] = media.length === 0 ? text : [...(text === '' ? [] : [{ type: 'text' as const, text }]), ...media];
  return { type: 'tool-result', callId, name: functionResponse.name, content, ...(isError && { isError }) };
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * A tool result → a `functionResponse` part. `response` must be an object: a result that is a
 * JSON object is sent as that object, anything else as `{output: text}`, and an error as
 * `{error: value}` (protocols.md §10.4). Images and files go in the multimodal `parts`.
 */
export function convertToolResultToGemini(result: ToolResultPart, name: string, param: string): GeminiPart {
  let text: string;
  const media: GeminiPart[] = [];
  if (typeof result.content === 'string') text = result.content;
  else {
    const texts: string[] = [];
    result.content.forEach((item: TextPart | ImagePart | FilePart, index) => {
      if (item.type === 'text') texts.push(item.text);
      else media.push(convertMediaToGemini(item.source, `${param}.content[${index}]`));
    });
    text = texts.join('\n');
  }
  const value = parseJsonObject(text) ?? text;
  const response = result.isError ? { error: value } : typeof value === 'string' ? { output: value } : value;
  const functionResponse: GeminiPart = { id: result.callId, name, response };
  if (media.length > 0) functionResponse.parts = media;
  return { functionResponse };
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  // Only text that can be an object is parsed, so plain tool output costs no exception.
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
