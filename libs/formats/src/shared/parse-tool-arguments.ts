import { GatewayError } from '@switchyard/canonical';

/**
 * Tool-call arguments travel as JSON text in chat/responses and as objects in messages and
 * generate-content. Empty text means "no arguments" (protocols.md §12.5). Invalid JSON cannot
 * become an object faithfully, so it is a 400 naming the param rather than a guessed `{}`.
 */
export function parseToolArguments(text: string, param: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new GatewayError('invalid_request', `Tool call arguments are not valid JSON: ${truncate(text)}`, { param });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new GatewayError('invalid_request', 'Tool call arguments must be a JSON object.', { param });
  }
  return value as Record<string, unknown>;
}

/** Object arguments back to compact JSON text. */
export function stringifyToolArguments(value: unknown): string {
  return value === undefined || value === null ? '{}' : JSON.stringify(value);
}

function truncate(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
