import type { ResponseFormat } from '@switchyard/canonical';

/** The json_schema object both OpenAI formats use — nested in chat's `response_format`, flat in Responses' `text.format`. */
// A type alias, not an interface: it must fit the loose (index-signature) zod types of both formats.
export type OpenAiJsonSchemaFormat = {
  name: string;
  description?: string;
  schema: Record<string, unknown>;
  strict?: boolean;
};

export interface OpenAiJsonSchemaInput {
  name?: string | null | undefined;
  description?: string | null | undefined;
  schema?: Record<string, unknown> | null | undefined;
  strict?: boolean | null | undefined;
}

/** text / json_object / json_schema → canonical, whichever of the two formats it came from. */
export function openAiFormatToCanonical(type: 'text' | 'json_object' | 'json_schema', schema: OpenAiJsonSchemaInput | undefined): ResponseFormat {
  if (type === 'text') return { type: 'text' };
  if (type === 'json_object') return { type: 'json' };
  const canonical: ResponseFormat = { type: 'json-schema', schema: schema?.schema ?? {} };
  if (schema?.name != null) canonical.name = schema.name;
  if (schema?.description != null) canonical.description = schema.description;
  if (schema?.strict != null) canonical.strict = schema.strict;
  return canonical;
}

/** Canonical → the json_schema object; `name` is required by the API, so formats without one get a neutral name. */
export function canonicalToOpenAiJsonSchema(format: Extract<ResponseFormat, { type: 'json-schema' }>): OpenAiJsonSchemaFormat {
  return {
    name: format.name ?? 'response',
    ...(format.description === undefined ? {} : { description: format.description }),
    schema: format.schema,
    ...(format.strict === undefined ? {} : { strict: format.strict }),
  };
}
