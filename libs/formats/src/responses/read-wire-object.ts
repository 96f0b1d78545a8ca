/**
 * Typed reads from parsed stream events. Events are not schema-checked on the hot path (one
 * per token), so every field is narrowed where it is read.
 */

export type WireObject = Record<string, unknown>;

export function asObject(value: unknown): WireObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as WireObject) : undefined;
}

/** One event's JSON, or undefined when it is not a JSON object. */
export function parseWireObject(data: string): WireObject | undefined {
  try {
    return asObject(JSON.parse(data));
  } catch {
    return undefined;
  }
}

export function objectField(record: WireObject | undefined, key: string): WireObject | undefined {
  return asObject(record?.[key]);
}

export function stringField(record: WireObject | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === 'string' ? value : undefined;
}

export function numberField(record: WireObject | undefined, key: string): number | undefined {
  const value = record?.[key];
  return typeof value === 'number' ? value : undefined;
}
