import { GatewayError } from '@switchyard/canonical';
import type { AnswerWriter } from './answer-writer.ts';
import type { WireFormat } from './wire-format.ts';

/**
 * Ends a response with an error in the client's own format: a JSON error body before the
 * first byte, the format's in-stream error event after it (protocols.md §7.3).
 */
export function writeError(response: AnswerWriter, format: WireFormat, error: GatewayError, requestId: string): void {
  if (response.writableEnded || response.destroyed) return;
  if (response.headersSent) {
    response.end(format.errors.renderStreamError(error, requestId));
    return;
  }
  const rendered = format.errors.render(error, requestId);
  const body = JSON.stringify(rendered.body);
  response.writeHead(rendered.status, {
    ...rendered.headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
  });
  response.end(body);
}

/** Anything thrown on the way becomes a GatewayError; unknown failures are 500s that reveal nothing. */
export function toGatewayError(error: unknown): GatewayError {
  if (GatewayError.isInstance(error)) return error;
  return new GatewayError('internal', 'Internal error.', { cause: error });
}
