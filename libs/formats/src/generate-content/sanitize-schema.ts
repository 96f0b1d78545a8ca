import { isRecord } from '../shared/index.ts';

type Schema = Record<string, unknown>;

/**
 * JSON Schema → the OpenAPI-3.0 subset generate-content accepts in `parameters`
 * (protocols.md §6.2, §10.3, pitfall §12.10). Gemini answers 400 "Unknown name" for keywords
 * outside the subset, so this keeps an allow-list rather than dropping known offenders:
 * type names go upper-case, `"null"` in a type list or an `anyOf` becomes `nullable`, `const`
 * becomes a one-value `enum`, `oneOf` reads as `anyOf`, `allOf` is merged, and local `$ref`s
 * (`#/$defs/…`, `#/definitions/…`, `#`) are inlined. A recursive `$ref` cannot be inlined; it is
 * cut at its first repeat and becomes a bare `OBJECT` there.
 * @see https://ai.google.dev/api/caching#Schema
 */
export function sanitizeSchema(schema: Schema): Schema {
  const definitions: Schema = { ...asRecord(schema.definitions), ...asRecord(schema.$defs) };
  return convert(schema, { root: schema, definitions, resolving: new Set() });
}

interface Context {
  root: Schema;
  definitions: Schema;
  /** `$ref`s being inlined on the current path, to stop recursion. */
  resolving: Set<string>;
}

/** Keywords of the subset copied unchanged; the structural ones are rebuilt in convert(). */
const COPIED_KEYWORDS = new Set([
  'title',
  'description',
  'default',
  'example',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'propertyOrdering',
]);

/** Gemini rejects other formats ("only 'enum' and 'date-time' are supported for STRING type"). */
const FORMATS_FOR_TYPE: Record<string, readonly string[]> = {
  STRING: ['enum', 'date-time'],
  NUMBER: ['float', 'double'],
  INTEGER: ['int32', 'int64'],
};

function convert(node: unknown, context: Context): Schema {
  // Boolean schemas (`true`: anything) have no equivalent; an empty schema is the closest.
  if (!isRecord(node)) return {};
  if (typeof node.$ref === 'string') {
    const { $ref, ...siblings } = node;
    return convertReference($ref, siblings, context);
  }
  if (Array.isArray(node.allOf)) {
    const { allOf, ...rest } = node;
    return mergeSchemas([convert(rest, context), ...allOf.map((item) => convert(item, context))]);
  }
  const variants = node.anyOf ?? node.oneOf;
  if (Array.isArray(variants)) {
    const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = node;
    const nonNull = variants.filter((variant) => !(isRecord(variant) && variant.type === 'null'));
    const converted =
      nonNull.length === 1
        ? mergeSchemas([convert(rest, context), convert(nonNull[0], context)])
        : { ...convert(rest, context), anyOf: nonNull.map((variant) => convert(variant, context)) };
    if (nonNull.length < variants.length) converted.nullable = true;
    return converted;
  }
  return convertPlain(node, context);
}

function convertPlain(node: Schema, context: Context): Schema {
  const out: Schema = {};
  const types = typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? node.type.filter(isString) : [];
  const nonNull = types.filter((type) => type !== 'null');
  if (nonNull.length < types.length) {
    if (nonNull.length === 0) out.type = 'NULL';
    else out.nullable = true;
  }
  if (nonNull.length === 1) out.type = nonNull[0]!.toUpperCase();
  else if (nonNull.length > 1) out.anyOf = nonNull.map((type) => ({ type: type.toUpperCase() }));

  for (const [key, value] of Object.entries(node)) {
    if (COPIED_KEYWORDS.has(key)) out[key] = value;
    else if (key === 'properties' && isRecord(value)) {
      const properties: Schema = {};
      for (const [name, property] of Object.entries(value)) properties[name] = convert(property, context);
      out.properties = properties;
    } else if (key === 'items' && isRecord(value)) out.items = convert(value, context);
    // Enum values are strings on the wire; a non-string enum is dropped (a looser schema, never a wrong one).
    else if (key === 'enum' && Array.isArray(value) && value.every(isString)) out.enum = value;
    else if (key === 'const' && isString(value)) out.enum = [value];
  }

  if (out.enum !== undefined) out.type ??= 'STRING';
  const format = node.format;
  if (isString(format) && typeof out.type === 'string' && FORMATS_FOR_TYPE[out.type]?.includes(format)) out.format = format;
  if (Array.isArray(node.required)) {
    // Gemini rejects a required name that is not a declared property.
    const declared = isRecord(out.properties) ? out.properties : {};
    const required = node.required.filter((name) => isString(name) && name in declared);
    if (required.length > 0) out.required = required;
  }
  return out;
}

function convertReference(reference: string, siblings: Schema, context: Context): Schema {
  const target = resolveReference(reference, context);
  if (target === undefined || context.resolving.has(reference)) {
    return mergeSchemas([convert(siblings, context), { type: 'OBJECT' }]);
  }
  context.resolving.add(reference);
  const converted = mergeSchemas([convert(siblings, context), convert(target, context)]);
  context.resolving.delete(reference);
  return converted;
}

function resolveReference(reference: string, context: Context): unknown {
  if (reference === '#') return context.root;
  const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(reference);
  if (match === null) return undefined;
  const name = match[1]!.replaceAll('~1', '/').replaceAll('~0', '~');
  return context.definitions[name];
}

/** Shallow merge of converted schemas: properties and required lists unite, otherwise the first value wins. */
function mergeSchemas(schemas: Schema[]): Schema {
  const merged: Schema = {};
  for (const schema of schemas) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && isRecord(merged.properties) && isRecord(value)) {
        merged.properties = { ...merged.properties, ...value };
      } else if (key === 'required' && Array.isArray(merged.required) && Array.isArray(value)) {
        merged.required = [...new Set([...merged.required, ...value])];
      } else if (!(key in merged)) merged[key] = value;
    }
  }
  return merged;
}

function asRecord(value: unknown): Schema {
  return isRecord(value) ? value : {};
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}
