import type { ResponseFormat } from '@switchyard/canonical';
import type { ChatResponseFormat } from './schema.ts';

/** response_format ↔ canonical (protocols.md §3.1, §10.7). */
export function convertToCanonicalResponseFormat(format: ChatResponseFormat): ResponseFormat {
  switch (format.type) {
    case 'text':
      return { type: 'text' };
    case 'json_object':
      return { type: 'json' };
    case 'json_schema': {
      const { name, description, schema, strict } = format.json_schema;
      const canonical: ResponseFormat = { type: 'json-schema', name, schema: schema ?? {} };
      if (description != null) canonical.description = description;
      if (strict != null) canonical.strict = strict;
      return canonical;
    }
  }
}

export function convertToChatResponseFormat(format: ResponseFormat): ChatResponseFormat {
  switch (format.type) {
    case 'text':
      return { type: 'text' };
    case 'json':
      return { type: 'json_object' };
    case 'json-schema':
      return {
        type: 'json_schema',
        json_schema: {
          // `name` is required by chat; formats without one (messages, generate-content) get a neutral name.
          name: format.name ?? 'response',
          description: format.description,
          schema: format.schema,
          strict: format.strict,
        },
      };
  }
}
