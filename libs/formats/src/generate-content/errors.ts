import { ERROR_KINDS, GatewayError, errorKindForStatus, type ErrorKind } from '@switchyard/canonical';
import type { RenderedError } from '../wire-format.ts';
import { isRecord } from '../shared/index.ts';

/**
 * Gateway errors ↔ the Google error envelope `{error: {code, message, status, details}}`
 * (protocols.md §7). Decisions [policy]: a bad key is 401 UNAUTHENTICATED (Gemini itself says
 * 400, §7.2); a body over the size limit is 413 with INVALID_ARGUMENT, the status Gemini gives
 * oversized payloads; 502 and the overloaded kind render as UNAVAILABLE, the retryable status
 * js-genai and Google clients know, rather than INTERNAL; 422 has no Google counterpart and
 * renders as 400 INVALID_ARGUMENT.
 */
const RENDERING: Record<ErrorKind, { code: number; status: string }> = {
  invalid_request: { code: 400, status: 'INVALID_ARGUMENT' },
  authentication: { code: 401, status: 'UNAUTHENTICATED' },
  permission: { code: 403, status: 'PERMISSION_DENIED' },
  not_found: { code: 404, status: 'NOT_FOUND' },
  request_too_large: { code: 413, status: 'INVALID_ARGUMENT' },
  unprocessable: { code: 400, status: 'INVALID_ARGUMENT' },
  rate_limited: { code: 429, status: 'RESOURCE_EXHAUSTED' },
  quota_exhausted: { code: 429, status: 'RESOURCE_EXHAUSTED' },
  client_closed: { code: 499, status: 'CANCELLED' },
  internal: { code: 500, status: 'INTERNAL' },
  upstream_error: { code: 502, status: 'UNAVAILABLE' },
  unavailable: { code: 503, status: 'UNAVAILABLE' },
  upstream_timeout: { code: 504, status: 'DEADLINE_EXCEEDED' },
  overloaded: { code: 503, status: 'UNAVAILABLE' },
};

/** google.rpc.Code names by HTTP status, for statuses an error carries explicitly. */
const STATUS_FOR_CODE: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const GOOGLE_STATUSES = new Set([
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
]);

const TYPE_PREFIX = 'type.googleapis.com/google.rpc.';

export function renderError(error: GatewayError, requestId: string): RenderedError {
  const { code, status } = resolveCodeAndStatus(error);
  const details: Record<string, unknown>[] = [];
  if (error.param !== undefined) {
    details.push({ '@type': `${TYPE_PREFIX}BadRequest`, fieldViolations: [{ field: error.param, description: error.message }] });
  }
  if (code === 429 && error.retryAfterSeconds !== undefined) {
    details.push({ '@type': `${TYPE_PREFIX}RetryInfo`, retryDelay: `${error.retryAfterSeconds}s` });
  }
  details.push({ '@type': `${TYPE_PREFIX}RequestInfo`, requestId });

  const headers: Record<string, string> = { ...error.headers };
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
  // Retrying cannot refill a quota; the Stainless SDKs and our own clients obey this header first.
  if (error.kind === 'quota_exhausted') headers['x-should-retry'] = 'false';
  return { status: code, body: { error: { code, message: error.message, status, details } }, headers };
}

/**
 * The kind decides, unless the error carries its own status (an upstream's answer passed on):
 * then that status is rendered, and a Google status name from a Gemini upstream is kept.
 */
function resolveCodeAndStatus(error: GatewayError): { code: number; status: string } {
  const upstreamStatus = error.upstreamType !== undefined && GOOGLE_STATUSES.has(error.upstreamType) ? error.upstreamType : undefined;
  if (error.status === ERROR_KINDS[error.kind]) {
    const rendering = RENDERING[error.kind];
    return upstreamStatus === undefined ? rendering : { code: rendering.code, status: upstreamStatus };
  }
  const status = upstreamStatus ?? STATUS_FOR_CODE[error.status] ?? (error.status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
  return { code: error.status, status };
}

/**
 * After the first byte the only channel left is one more `data:` event; js-genai 3.x throws an
 * ApiError for a chunk whose `error.code` is a 4xx/5xx number (protocols.md §7.3).
 */
export function renderStreamError(error: GatewayError, requestId: string): string {
  return `data: ${JSON.stringify(renderError(error, requestId).body)}\n\n`;
}

/** An upstream's error answer (parsed JSON or text) → GatewayError, keeping Google's status name. */
export function errorFromUpstream(status: number, body: unknown): GatewayError {
  // The non-SSE stream endpoint wraps its answer, errors included, in a JSON array.
  const envelope = Array.isArray(body) ? body[0] : body;
  const error = isRecord(envelope) && isRecord(envelope.error) ? envelope.error : undefined;
  if (error === undefined) {
    const text = typeof body === 'string' && body.trim() !== '' ? body.trim() : `Upstream answered with HTTP ${status}.`;
    return new GatewayError(errorKindForStatus(status), text, { status, cause: body });
  }
  const details = Array.isArray(error.details) ? error.details.filter(isRecord) : [];
  const message = typeof error.message === 'string' && error.message !== '' ? error.message : `Upstream answered with HTTP ${status}.`;
  // Gemini reports a bad key as 400 INVALID_ARGUMENT; its ErrorInfo reason is the reliable signal.
  const keyRejected = details.some((detail) => detail.reason === 'API_KEY_INVALID');
  const upstreamType = !keyRejected && typeof error.status === 'string' ? error.status : undefined;
  const retryAfterSeconds = readRetryDelay(details);
  return new GatewayError(keyRejected ? 'authentication' : errorKindForStatus(status), message, {
    status: keyRejected ? ERROR_KINDS.authentication : status,
    ...(upstreamType !== undefined && { upstreamType }),
    ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
    cause: body,
  });
}

/** `google.rpc.RetryInfo.retryDelay` is a Duration in JSON form: `"17s"`, `"0.5s"`. */
function readRetryDelay(details: Record<string, unknown>[]): number | undefined {
  for (const detail of details) {
    const delay = detail.retryDelay;
    if (typeof delay === 'string' && /^\d+(\.\d+)?s$/.test(delay)) return Math.ceil(Number.parseFloat(delay));
  }
  return undefined;
}
