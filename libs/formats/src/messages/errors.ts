import { errorKindForStatus, GatewayError, type ErrorKind, type GatewayErrorOptions } from '@switchyard/canonical';
import type { RenderedError } from '../wire-format.ts';
import { isRecord } from '../shared/index.ts';

/**
 * messages `error.type` per kind (protocols.md §7.2). messages has no 422/499/502/503 of its
 * own: other 4xx use `invalid_request_error` as its docs allow; Switchyard's 502/503 say
 * `api_error` (the vendor ties `overloaded_error` to 529 — sending it with 503 would mix the
 * two signals); the HTTP status still tells retrying clients what happened.
 */
const ERROR_TYPE_FOR_KIND: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  request_too_large: 'request_too_large',
  unprocessable: 'invalid_request_error',
  rate_limited: 'rate_limit_error',
  quota_exhausted: 'rate_limit_error',
  client_closed: 'invalid_request_error',
  internal: 'api_error',
  upstream_error: 'api_error',
  unavailable: 'api_error',
  upstream_timeout: 'timeout_error',
  overloaded: 'overloaded_error',
};

/**
 * The vendor's error types and what they mean here; used for in-stream `error` events, which
 * carry no status. `api_error` is the upstream's own failure, hence `upstream_error`.
 */
const KIND_FOR_ERROR_TYPE = new Map<string, ErrorKind>([
  ['invalid_request_error', 'invalid_request'],
  ['authentication_error', 'authentication'],
  ['permission_error', 'permission'],
  ['not_found_error', 'not_found'],
  ['request_too_large', 'request_too_large'],
  ['rate_limit_error', 'rate_limited'],
  ['api_error', 'upstream_error'],
  ['timeout_error', 'upstream_timeout'],
  ['overloaded_error', 'overloaded'],
  ['billing_error', 'upstream_error'],
  ['conflict_error', 'upstream_error'],
]);

/** An upstream's own type is echoed only when it is one messages clients know (it may come from another format). */
function errorType(error: GatewayError): string {
  const upstreamType = error.upstreamType;
  if (upstreamType !== undefined && KIND_FOR_ERROR_TYPE.has(upstreamType)) return upstreamType;
  return ERROR_TYPE_FOR_KIND[error.kind];
}

function errorObject(error: GatewayError): { type: string; message: string } {
  return { type: errorType(error), message: error.message };
}

/** Both vendor SDKs obey `x-should-retry` before anything else (§7.4): a spent quota must not be retried. */
export function renderError(error: GatewayError, requestId: string): RenderedError {
  const headers: Record<string, string> = { ...error.headers, 'request-id': requestId };
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(Math.ceil(error.retryAfterSeconds));
  if (error.kind === 'quota_exhausted') headers['x-should-retry'] = 'false';
  return {
    status: error.status,
    body: { type: 'error', error: errorObject(error), request_id: requestId },
    headers,
  };
}

/** The in-band error event of protocols.md §7.3; the SDK throws it as an API error. */
export function renderStreamError(error: GatewayError): string {
  return `event: error\ndata: ${JSON.stringify({ type: 'error', error: errorObject(error) })}\n\n`;
}


/** `{type, message}` from a messages error envelope (`{"type":"error","error":{…}}`), as far as it is there. */
function readErrorObject(envelope: unknown): { type?: string; message?: string } {
  const error = isRecord(envelope) && isRecord(envelope.error) ? envelope.error : {};
  const read: { type?: string; message?: string } = {};
  if (typeof error.type === 'string') read.type = error.type;
  if (typeof error.message === 'string') read.message = error.message;
  return read;
}

/** An in-stream `error` event (it may follow HTTP 200, §5.5). Unknown types are the upstream failing. */
export function errorFromStreamEvent(event: unknown): GatewayError {
  const { type, message } = readErrorObject(event);
  const kind = (type === undefined ? undefined : KIND_FOR_ERROR_TYPE.get(type)) ?? 'upstream_error';
  const options: GatewayErrorOptions = type === undefined ? {} : { upstreamType: type };
  return new GatewayError(kind, message ?? 'The upstream stream reported an error.', options);
}

/** Proxies in front of an upstream may answer with an HTML page; a client needs the gist, not the page. */
const MAX_TEXT_MESSAGE = 500;

/**
 * An upstream error answer: the messages envelope, or text from a proxy in front of it.
 * Client errors keep the upstream's status (402 billing, 409 …) so they are passed on as sent.
 */
export function errorFromUpstream(status: number, body: unknown): GatewayError {
  const { type, message } = readErrorObject(body);
  const text = typeof body === 'string' ? body.trim().slice(0, MAX_TEXT_MESSAGE) : '';
  const options: GatewayErrorOptions = {};
  if (type !== undefined) options.upstreamType = type;
  if (status >= 400 && status < 500) options.status = status;
  const fallback = text === '' ? `The upstream answered with HTTP ${status}.` : text;
  return new GatewayError(errorKindForStatus(status), message ?? fallback, options);
}
