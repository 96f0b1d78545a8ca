import { isRecord } from '../shared/index.ts';

/**
 * Extension fields are kept as a partial request body in the wire layout (`{safetySettings,
 * generationConfig: {imageConfig}, tools: [{googleSearch: {}}]}`), so the encoder can lay them
 * back over the body it builds: objects merge, arrays append, anything else replaces.
 */

/** The fields of `object` that are not in `known`, or undefined when there are none. */
export function pickUnknownFields(object: Record<string, unknown>, known: ReadonlySet<string>): Record<string, unknown> | undefined {
  let unknown: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(object)) {
    if (!known.has(key) && value !== undefined) (unknown ??= {})[key] = value;
  }
  return unknown;
}

/** Sets `path` in `target`, creating the objects on the way. */
export function setField(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    node = isRecord(next) ? next : (node[key] = {});
  }
  node[path[path.length - 1]!] = value;
}

export function mergeExtensionFields(target: Record<string, unknown>, fields: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(fields)) {
    const current = target[key];
    if (isRecord(current) && isRecord(value)) {
      const copy = { ...current };
      mergeExtensionFields(copy, value);
      target[key] = copy;
    } else if (Array.isArray(current) && Array.isArray(value)) target[key] = [...current, ...value];
    else target[key] = value;
  }
}
