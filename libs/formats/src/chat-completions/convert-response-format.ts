import type { ResponseFormat } from '@switchyard/canonical';
import { canonicalToOpenAiJsonSchema, openAiFormatToCanonical } from '../shared/index.ts';
import type { ChatResponseFormat } from './schema.ts';

/** response_format ↔ canonical (protocols.md §3.1, §10.7); the schema is nested under `json_schema`. */
export function convertToCanonicalResponseFormat(format: ChatResponseFormat): ResponseFormat {
  return openAiFormatToCanonical(format.type, format.type === 'json_schema' ? format.json_schema : undefined);
}

export function convertToChatResponseFormat(format: ResponseFormat): ChatResponseFormat {
  if (format.type === 'text') return { type: 'text' };
  if (format.type === 'json') return { type: 'json_object' };
  return { type: 'json_schema', json_schema: canonicalToOpenAiJsonSchema(format) };
}
