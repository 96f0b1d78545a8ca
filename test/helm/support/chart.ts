// The chart under test, its schema and values, shared by the chart test files.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { parse } from 'yaml';
import type { ValuesPath } from './values-references.ts';

export const root = join(import.meta.dirname, '../../..');
export const chart = join(root, 'helm/switchyard');
export const read = (path: string): string => readFileSync(path, 'utf8');

export type Values = Record<string, unknown>;
export interface Schema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  definitions?: Record<string, Schema>;
  $ref?: string;
}

export const schema = JSON.parse(read(join(chart, 'values.schema.json'))) as Schema;
export const values = parse(read(join(chart, 'values.yaml'))) as Values;
export const ciFiles = readdirSync(join(chart, 'ci'))
  .filter((name) => name.endsWith('.yaml'))
  .sort();
export const ciValues = (name: string): Values => parse(read(join(chart, 'ci', name))) as Values;

export function templateFiles(directory = join(chart, 'templates')): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? templateFiles(join(directory, entry.name)) : [join(directory, entry.name)],
  );
}

// Helm's own rule for `-f` files: maps merge key by key, anything else (lists included)
// replaces, and null deletes the key.
export function mergeValues(base: Values, override: Values): Values {
  const merged: Values = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current = merged[key];
    if (value === null) delete merged[key];
    else if (isPlainObject(value) && isPlainObject(current)) merged[key] = mergeValues(current, value);
    else merged[key] = value;
  }
  return merged;
}

export function isPlainObject(value: unknown): value is Values {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function resolve(node: Schema): Schema {
  if (node.$ref === undefined) return node;
  const name = node.$ref.replace('#/definitions/', '');
  const target = schema.definitions?.[name];
  if (target === undefined) throw new Error(`unresolved $ref ${node.$ref}`);
  return resolve(target);
}

/** An object the chart passes through untyped: Kubernetes shapes, annotations, `catalog`. */
export function isFreeForm(node: Schema): boolean {
  return node.type === 'object' && node.properties === undefined;
}

const SCHEMA_ONLY = Symbol('no value to compare with');

/**
 * Whether a path that templates read is declared by the schema and set in values.yaml (or
 * lies under a free-form map). `*` must hold for every key of the map it indexes, `[]` for
 * every item of a list (for the schema alone when values.yaml's list is empty).
 */
export function pathExists(path: ValuesPath, node: Schema = schema, value: unknown = values): boolean {
  node = resolve(node);
  const [segment, ...rest] = path;
  if (segment === undefined || isFreeForm(node)) return true;
  if (segment === '*' || segment === '[]') {
    if (node.items !== undefined) {
      const items = Array.isArray(value) ? value : [];
      return items.length === 0 ? pathExists(rest, node.items, SCHEMA_ONLY) : items.every((item) => pathExists(rest, node.items as Schema, item));
    }
    if (node.properties !== undefined) {
      return Object.entries(node.properties).every(([key, child]) => pathExists(rest, child, value === SCHEMA_ONLY ? SCHEMA_ONLY : isPlainObject(value) ? value[key] : undefined));
    }
    if (typeof node.additionalProperties === 'object') return pathExists(rest, node.additionalProperties, SCHEMA_ONLY);
    return false;
  }
  const child = node.properties?.[segment];
  if (child === undefined) return false;
  if (value === SCHEMA_ONLY) return pathExists(rest, child, SCHEMA_ONLY);
  if (!isPlainObject(value) || !(segment in value)) return false;
  return pathExists(rest, child, value[segment]);
}

const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
const validate = ajv.compile(schema);
export const errorsOf = (candidate: unknown): ErrorObject[] => (validate(candidate) ? [] : [...(validate.errors ?? [])]);
