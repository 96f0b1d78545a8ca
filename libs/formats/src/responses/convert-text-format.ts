import type { ResponseFormat } from '@switchyard/canonical';
import { canonicalToOpenAiJsonSchema, openAiFormatToCanonical, type OpenAiJsonSchemaFormat } from '../shared/index.ts';
import type { TextFormat } from './schema.ts';

/**
 * `text.format` ↔ canonical response format (protocols.md §4.3). The JSON schema sits directly
 * in `format`, unlike chat's `response_format.json_schema.schema`.
 */
export function textFormatToCanonical(format: TextFormat): ResponseFormat {
  return openAiFormatToCanonical(format.type, format.type === 'json_schema' ? format : undefined);
}

export type UpstreamTextFormat = { type: 'text' } | { type: 'json_object' } | ({ type: 'json_schema' } & OpenAiJsonSchemaFormat);

export function textFormatFromCanonical(format: ResponseFormat): UpstreamTextFormat {
  if (format.type === 'text') return { type: 'text' };
  if (format.type === 'json') return { type: 'json_object' };
  return { type: 'json_schema', ...canonicalToOpenAiJsonSchema(format) };
}
