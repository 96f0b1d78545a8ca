import { isRecord } from '../shared/index.ts';

/**
 * The OpenAPI-3.0 subset Gemini clients send (`parameters`, `responseSchema`) → JSON Schema, the
 * canonical tool-schema language: type names go lower-case, `nullable` joins `"null"` to the
 * type, Gemini's `propertyOrdering` hint is dropped. Everything else is already JSON Schema.
 */
export function convertOpenApiSchemaToJsonSchema(schema: unknown): Record<string, unknown> {
  if (!isRecord(schema)) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    switch (key) {
      case 'type':
        if (typeof value === 'string' && value !== 'TYPE_UNSPECIFIED') out.type = value.toLowerCase();
        break;
      case 'nullable':
      case 'propertyOrdering':
        break;
      case 'properties':
        out.properties = isRecord(value)
          ? Object.fromEntries(Object.entries(value).map(([name, property]) => [name, convertOpenApiSchemaToJsonSchema(property)]))
          : value;
        break;
      case 'items':
        out.items = convertOpenApiSchemaToJsonSchema(value);
        break;
      case 'anyOf':
        out.anyOf = Array.isArray(value) ? value.map(convertOpenApiSchemaToJsonSchema) : value;
        break;
      default:
        out[key] = value;
    }
  }
  if (schema.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.anyOf)) out.anyOf = [...out.anyOf, { type: 'null' }];
  }
  return out;
}
