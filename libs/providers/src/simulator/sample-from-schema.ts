import { asArray, asObject, asString } from './json-access.ts';

// Deep enough for any real tool schema; a self-referencing one stops here instead of looping.
const MAX_DEPTH = 8;

/** JSON Schema `type` may be a list (`["string","null"]`); Gemini writes it upper-case. */
function schemaType(schema: Record<string, unknown>): string | undefined {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const first = types.map((type) => asString(type)?.toLowerCase()).find((type) => type !== undefined && type !== 'null');
  if (first !== undefined) return first;
  if (schema.properties !== undefined) return 'object';
  if (schema.items !== undefined) return 'array';
  return types.includes('null') || types.includes('NULL') ? 'null' : undefined;
}

/**
 * A value that satisfies `schema`, the same every time: strings "sample", numbers 1, booleans
 * true, enums their first value, objects every listed property, arrays one item.
 */
export function sampleFromSchema(schema: unknown, depth = 0): unknown {
  const object = asObject(schema);
  if (object === undefined || depth > MAX_DEPTH) return 'sample';
  if ('const' in object) return object.const;
  const choices = asArray(object.enum);
  if (choices.length > 0) return choices[0];
  const alternatives = asArray(object.anyOf ?? object.oneOf);
  if (alternatives.length > 0) return sampleFromSchema(alternatives.find((option) => asObject(option)?.type !== 'null') ?? alternatives[0], depth + 1);
  switch (schemaType(object)) {
    case 'object': {
      const result: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(asObject(object.properties) ?? {})) {
        result[name] = sampleFromSchema(property, depth + 1);
      }
      return result;
    }
    case 'array':
      return [sampleFromSchema(object.items, depth + 1)];
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return 'sample';
  }
}

/** Tool arguments are always an object, even for a tool declared without parameters. */
export function sampleArguments(schema: unknown): Record<string, unknown> {
  const value = sampleFromSchema(schema);
  return asObject(value) ?? {};
}
