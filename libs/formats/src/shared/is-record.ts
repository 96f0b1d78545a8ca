/** A JSON object (not null, not an array), for reading upstream bodies without casts. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
