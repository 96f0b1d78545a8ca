// Helpers for the formats' tests only (nothing outside tests imports this file).
import { GatewayError } from '@switchyard/canonical';
import fc from 'fast-check';
import { expect } from 'vitest';

/** The GatewayError `run` throws; anything else (or nothing) fails the test. */
export function caught(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (GatewayError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

type Arbitraries = Record<string, fc.Arbitrary<unknown>>;

/** Drawn for a field, leaves it out of the object. */
export const OMITTED = Symbol('omitted');

/** An object with the `required` fields (but those drawn as `OMITTED`) and about a third of the `optional` ones. */
export function object(required: Arbitraries, optional: Arbitraries = {}): fc.Arbitrary<Record<string, unknown>> {
  const sometimes = Object.entries(optional).map(([key, arbitrary]) => [
    key,
    fc.oneof({ arbitrary: fc.constant(OMITTED), weight: 2 }, { arbitrary, weight: 1 }),
  ]);
  return fc
    .record({ ...required, ...Object.fromEntries(sometimes) })
    .map((fields) => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== OMITTED)));
}

export const rarely = <T, U = T>(common: fc.Arbitrary<T>, rare: fc.Arbitrary<U>) => fc.oneof({ arbitrary: common, weight: 6 }, { arbitrary: rare, weight: 1 });
export const nullable = <T>(arbitrary: fc.Arbitrary<T>) => rarely(arbitrary, fc.constant(null));
export const text = fc.string({ maxLength: 4 });
/** The distance to the next double away from zero: a bound just crossed. */
const step = (bound: number) => Math.max(Math.abs(bound) * Number.EPSILON, Number.MIN_VALUE);
/** Mostly numbers within the bounds, rarely ones just past them, NaN, infinity or null. */
export const numberIn = (min: number, max: number) =>
  rarely(
    fc.oneof(fc.double({ min, max, noNaN: true }), fc.constantFrom(min, max, -0)),
    fc.constantFrom(min - step(min), max + step(max), min - 0.5, max + 0.5, Number.NaN, Number.POSITIVE_INFINITY, null),
  );

type Container = Record<string, unknown> | unknown[];

/** Every object and array in `value`, and every slot (container and key) they hold. */
function collect(value: unknown, containers: Container[] = [], slots: [Container, string][] = []) {
  if (typeof value !== 'object' || value === null) return { containers, slots };
  const container = value as Container;
  containers.push(container);
  for (const key of Object.keys(container)) {
    slots.push([container, key]);
    collect((container as Record<string, unknown>)[key], containers, slots);
  }
  return { containers, slots };
}

/**
 * Bodies near valid ones, for the request guards' property tests: a valid body with up to two
 * changes anywhere in it — a value replaced by one of `anyValue` (wrong types, bounds just
 * crossed, nulls), an entry deleted, a key or a JSON-style own `__proto__` key added, a
 * prototype dropped.
 */
export function mutatedLike(valid: fc.Arbitrary<unknown>, anyValue: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const mutation = fc.tuple(fc.constantFrom('replace', 'delete', 'add', 'add __proto__', 'drop prototype'), fc.nat(), anyValue);
  return fc.tuple(valid, fc.array(mutation, { maxLength: 2 })).map(([validBody, mutations]) => {
    const body = structuredClone(validBody);
    for (const [kind, at, shared] of mutations) {
      // The arbitraries hand out one `{}` and one `[]`, which later changes would alter.
      const value = structuredClone(shared);
      const { containers, slots } = collect(body);
      const target = containers[at % containers.length] as Container;
      if (kind === 'replace' || kind === 'delete') {
        const slot = slots[at % slots.length];
        // A body the first change emptied has no slot left to change.
        if (slot === undefined) continue;
        const [container, key] = slot;
        if (kind === 'replace') (container as Record<string, unknown>)[key] = value;
        else if (Array.isArray(container)) container.splice(Number(key), 1);
        else delete container[key as keyof Container];
      } else if (Array.isArray(target)) {
        // JSON gives arrays elements only, and the checks do not look for anything else on them.
        if (kind === 'add') target.push(value);
      } else if (kind === 'drop prototype') Object.setPrototypeOf(target, null);
      // Assignment to __proto__ would set the prototype; JSON.parse makes an own key, as this does.
      else Object.defineProperty(target, kind === 'add' ? 'x_added' : '__proto__', { value, enumerable: true, writable: true, configurable: true });
    }
    return body;
  });
}

/**
 * The property every exact check is held to: for values near valid ones, whatever `exact`
 * vouches for, `schema` accepts and returns unchanged; and it vouches for more than `atLeast`
 * of them (else the property says nothing about the check).
 */
export function expectExactAsSchema(
  values: fc.Arbitrary<unknown>,
  exact: (value: unknown) => boolean,
  schema: { safeParse(value: unknown): { success: boolean; data?: unknown } },
  atLeast = 100,
): void {
  let accepted = 0;
  fc.assert(
    fc.property(values, (value) => {
      if (!exact(value)) return;
      accepted++;
      const parsed = schema.safeParse(value);
      expect(parsed.success).toBe(true);
      expect(parsed.data).toStrictEqual(value);
    }),
    { numRuns: 2_000 },
  );
  expect(accepted).toBeGreaterThan(atLeast);
}

/**
 * A text reader that stands in for a parse, held to it: for `values` written compact and
 * pretty-printed, whatever `read` returns is what `parse` returns for the same text, and `read`
 * takes more than `atLeast` of them (else the property says nothing).
 */
export function expectReadAsParsed(
  values: fc.Arbitrary<unknown>,
  read: (text: string) => unknown,
  parse: (text: string) => unknown,
  { numRuns, atLeast }: { numRuns: number; atLeast: number },
): void {
  let taken = 0;
  fc.assert(
    fc.property(values, fc.boolean(), (value, pretty) => {
      const written = pretty ? JSON.stringify(value, null, 1) : JSON.stringify(value);
      const summary = read(written);
      if (summary === undefined) return;
      taken++;
      expect(summary).toEqual(parse(written));
    }),
    { numRuns },
  );
  expect(taken).toBeGreaterThan(atLeast);
}
