/**
 * Narrowing helpers for request bodies: the simulator reads loosely (vendors accept unknown
 * fields, and so do we) without a schema library on the hot path.
 */
export type JsonObject = Record<string, unknown>;

export function asObject(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** `stop` fields accept one string or a list of them. */
export function asStringList(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return asArray(value).filter((item): item is string => typeof item === 'string' && item !== '');
}
