import { GatewayError } from '@switchyard/canonical';
import type { z } from 'zod';

/**
 * Turns the first zod issue into a 400 that names the param the way OpenAI does
 * (`messages[0].content`, `temperature`), so every format reports the offending field.
 */
export function zodErrorToGatewayError(error: z.ZodError): GatewayError {
  const issue = error.issues[0];
  if (issue === undefined) return new GatewayError('invalid_request', 'Invalid request body.');
  const param = formatPath(issue.path);
  const where = param === '' ? 'Request body' : `'${param}'`;
  return new GatewayError('invalid_request', `Invalid value for ${where}: ${issue.message}`, param === '' ? {} : { param });
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}
