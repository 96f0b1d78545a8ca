// Helpers for the formats' tests only (nothing outside tests imports this file).
import { GatewayError } from '@switchyard/canonical';
import fc from 'fast-check';

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
      const [container, key] = slots[at % slots.length] as [Container, string];
      const target = containers[at % containers.length] as Container;
      if (kind === 'replace') (container as Record<string, unknown>)[key] = value;
      else if (kind === 'delete' && Array.isArray(container)) container.splice(Number(key), 1);
      else if (kind === 'delete') delete container[key as keyof Container];
      else if (Array.isArray(target)) {
        // JSON gives arrays elements only, and the checks do not look for anything else on them.
        if (kind === 'add') target.push(value);
      } else if (kind === 'drop prototype') Object.setPrototypeOf(target, null);
      // Assignment to __proto__ would set the prototype; JSON.parse makes an own key, as this does.
      else Object.defineProperty(target, kind === 'add' ? 'x_added' : '__proto__', { value, enumerable: true, writable: true, configurable: true });
    }
    return body;
  });
}
