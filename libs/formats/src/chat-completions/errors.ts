import { GatewayError, errorKindForStatus } from '@switchyard/canonical';
import type { ErrorKind, GatewayErrorOptions } from '@switchyard/canonical';
import type { RenderedError } from '../wire-format.ts';
import { isRecord } from '../shared/index.ts';

/** `{error:{message,type,param,code}}`: all four keys present, param/code may be null (protocols.md §7.1). */
export interface ChatErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** OpenAI's error `type` and default `code` per kind (protocols.md §7.2; 429 types are our policy). */
const ERROR_STYLE: Record<ErrorKind, { type: string; code?: string }> = {
  invalid_request: { type: 'invalid_request_error' },
  authentication: { type: 'authentication_error', code: 'invalid_api_key' },
  permission: { type: 'permission_error' },
  not_found: { type: 'invalid_request_error', code: 'model_not_found' },
  request_too_large: { type: 'invalid_request_error' },
  unprocessable: { type: 'invalid_request_error' },
  rate_limited: { type: 'requests', code: 'rate_limit_exceeded' },
  quota_exhausted: { type: 'insufficient_quota', code: 'insufficient_quota' },
  client_closed: { type: 'invalid_request_error' },
  internal: { type: 'server_error' },
  upstream_error: { type: 'server_error' },
  unavailable: { type: 'server_error' },
  upstream_timeout: { type: 'server_error' },
  overloaded: { type: 'server_error' },
};

export function renderErrorBody(error: GatewayError): ChatErrorBody {
  const style = ERROR_STYLE[error.kind];
  // Switchyard's own limiter says which window ran out (protocols.md §7.2).
  const type = error.kind === 'rate_limited' && error.limit === 'tokens' ? 'tokens' : style.type;
  return { error: { message: error.message, type, param: error.param ?? null, code: error.code ?? style.code ?? null } };
}

export function renderError(error: GatewayError, requestId: string): RenderedError {
  const headers: Record<string, string> = { ...error.headers, 'x-request-id': requestId };
  if (error.retryAfterSeconds !== undefined) {
    headers['retry-after'] = String(Math.max(0, Math.ceil(error.retryAfterSeconds)));
  } else if (error.kind === 'rate_limited') {
    // Every 429 carries retry-after (design.md §1); without a known window, the SDKs' own minimum.
    headers['retry-after'] = '1';
  }
  // Retrying cannot fix an exhausted quota; both Stainless SDKs obey this header first (§7.4).
  if (error.kind === 'quota_exhausted') headers['x-should-retry'] = 'false';
  // 529 exists only in vendor A's API; OpenAI clients know overload as 503.
  const status = error.status === 529 ? 503 : error.status;
  return { status, body: renderErrorBody(error), headers };
}

/** The in-stream error event: openai-node throws on it; nothing, not even [DONE], follows (§7.3). */
export function renderStreamError(error: GatewayError): string {
  return `data: ${JSON.stringify(renderErrorBody(error))}\n\n`;
}

/**
 * An upstream's error answer → GatewayError: the OpenAI envelope, the `{error:"…"}` or
 * top-level `{message}` shapes some compatible servers use, or plain text.
 */
export function errorFromUpstream(status: number, body: unknown): GatewayError {
  const { message, ...options } = readUpstreamError(body);
  return new GatewayError(errorKindForStatus(status), message ?? `The upstream answered HTTP ${status}.`, {
    ...options,
    // An upstream's own 4xx is passed on as is; 5xx statuses follow the kind.
    status: status >= 400 && status < 500 ? status : undefined,
  });
}

/** A chunk carrying `error` after the stream began (protocols.md §7.3): no status, so an upstream error. */
export function errorFromUpstreamChunk(body: unknown): GatewayError {
  const { message, ...options } = readUpstreamError(body);
  return new GatewayError('upstream_error', message ?? 'The upstream stream reported an error.', options);
}

function readUpstreamError(body: unknown): Pick<GatewayErrorOptions, 'param' | 'code' | 'upstreamType'> & { message?: string } {
  if (typeof body === 'string') return { message: truncate(body.trim()) || undefined };
  if (!isRecord(body)) return {};
  const error = body.error;
  if (typeof error === 'string') return { message: error };
  const source = isRecord(error) ? error : body;
  return {
    message: stringValue(source.message),
    upstreamType: stringValue(source.type),
    param: stringValue(source.param),
    // Some compatible servers send numeric codes.
    code: typeof source.code === 'number' ? String(source.code) : stringValue(source.code),
  };
}

function stringValue(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Proxies answer with whole HTML pages; a message needs the start only. */
function truncate(text: string): string {
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
