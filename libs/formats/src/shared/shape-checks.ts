import type { z } from 'zod';

/**
 * Combinators for the checks that stand in for zod parses on the hot path (zod's parse copies
 * the whole value). The request guards (`is-chat-request.ts`, `is-messages-request.ts`) vouch
 * that a body is one the schema would return unchanged and leave every other body to zod:
 * each of their checks is stricter than or equal to its zod counterpart, and when in doubt it
 * says no. The stream chunk checks (`is-chat-chunk.ts`, `is-plain-chunk.ts`) share the simple ones.
 */
export type Check = (value: unknown) => boolean;

/** zod's copy is a plain object holding what its `for…in` found, inherited keys included. */
export const isPlain = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/**
 * A loose object: `required` must hold, `optional` holds when present, other keys pass as zod
 * passes them. A present `undefined` passes only `nullish`: behind `.optional()` zod keeps some
 * and refuses others, and JSON never sends one.
 */
export const looseObject = (required: Record<string, Check>, optional: Record<string, Check> = {}): Check => {
  const requiredChecks = Object.entries(required);
  const optionalChecks = new Map(Object.entries(optional));
  return (value) => {
    if (!isPlain(value)) return false;
    for (const [key, check] of requiredChecks) if (!check(value[key])) return false;
    for (const key in value) {
      // JSON.parse makes `__proto__` an own key; zod leaves it out of its copy.
      if (key === '__proto__') return false;
      const check = optionalChecks.get(key);
      if (check !== undefined && !check(value[key])) return false;
    }
    return true;
  };
};

/** Keyed on a discriminator, like `z.discriminatedUnion`; an unlisted value is left to zod. */
export const byKey = (key: string, options: Record<string, Check>): Check => {
  const checks = new Map(Object.entries(options));
  return (value) => {
    if (!isPlain(value)) return false;
    const discriminator = value[key];
    const check = typeof discriminator === 'string' ? checks.get(discriminator) : undefined;
    return check !== undefined && check(value);
  };
};

export const nullish =
  (check: Check): Check =>
  (value) =>
    value === undefined || value === null || check(value);

export const either =
  (...checks: Check[]): Check =>
  (value) =>
    checks.some((check) => check(value));

/** `every` would skip the holes of a sparse array, which zod reads as `undefined`. */
export const arrayOf =
  (check: Check, minLength = 0): Check =>
  (value) => {
    if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype || value.length < minLength) return false;
    for (let index = 0; index < value.length; index++) if (!check(value[index])) return false;
    return true;
  };

export const literal =
  (...allowed: string[]): Check =>
  (value) =>
    allowed.includes(value as string);

export const between =
  (min: number, max: number): Check =>
  (value) =>
    typeof value === 'number' && value >= min && value <= max;

/** zod's `int` is a safe integer. */
export const intFrom =
  (min: number): Check =>
  (value) =>
    Number.isSafeInteger(value) && (value as number) >= min;

/** zod's `int`, any safe integer. */
export const isInt = intFrom(Number.MIN_SAFE_INTEGER);
export const isPositiveInt = intFrom(1);
/** zod's `number`, which refuses NaN and the infinities. */
export const isFiniteNumber: Check = (value) => Number.isFinite(value);
export const atLeast =
  (min: number): Check =>
  (value) =>
    isFiniteNumber(value) && (value as number) >= min;
/** For a field whose every present value is left to the schema: the whole value is then not vouched for. */
export const leftToZod: Check = () => false;

export const isString: Check = (value) => typeof value === 'string';
export const isNumber: Check = (value) => typeof value === 'number';
export const isBoolean: Check = (value) => typeof value === 'boolean';
/** `z.record(z.string(), z.unknown())`: its values are not rebuilt, only its own keys copied. */
export const isRecordOfUnknown = looseObject({});

/** `schema.safeParse`, without its parse and copy for a value `exact` vouches for. */
export function checkedParse<S extends z.ZodType>(schema: S, exact: (value: unknown) => value is z.output<S>): (value: unknown) => z.ZodSafeParseResult<z.output<S>> {
  return (value) => (exact(value) ? { success: true, data: value } : schema.safeParse(value));
}
