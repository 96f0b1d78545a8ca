import { GatewayError } from '@switchyard/canonical';

/** The client's body as JSON; anything else is the client's 400, never a crash. */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) throw new GatewayError('invalid_request', 'Request body is empty; expected a JSON object.');
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new GatewayError('invalid_request', 'Request body is not valid JSON.');
  }
}
