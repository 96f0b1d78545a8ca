import type { ResponseFormat } from '@switchyard/canonical';
import type { TextFormat } from './schema.ts';

/**
 * `text.format` ↔ canonical response format (protocols.md §4.3). The JSON schema sits directly
 * in `format`, unlike chat's `response_format.json_schema.schema`.
 */
export function textFormatToCanonical(format: TextFormat): ResponseFormat {
  switch (format.type) {
    case 'text':
      return { type: 'text' };
    case 'json_object':
      return { type: 'json' };
    case 'json_schema': {
      const canonical: ResponseFormat = { type: 'json-schema', schema: format.schema };
      if (format.name != null) canonical.name = format.name;
      if (format.description != null) canonical.description = format.description;
      if (format.strict != null) canonical.strict = format.strict;
      return canonical;
    }
  }
}

export type UpstreamTextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; description?: string; schema: Record<string, unknown>; strict?: boolean };

/** `name` is required by the API; formats without one (messages, generate-content) get a neutral name. */
export function textFormatFromCanonical(format: ResponseFormat): UpstreamTextFormat {
  switch (format.type) {
    case 'text':
      return { type: 'text' };
    case 'json':
      return { type: 'json_object' };
    case 'json-schema':
      return {
        type: 'json_schema',
        name: format.name ?? 'response',
        ...(format.description === undefined ? {} : { description: format.description }),
        schema: format.schema,
        ...(format.strict === undefined ? {} : { strict: format.strict }),
      };
  }
}
