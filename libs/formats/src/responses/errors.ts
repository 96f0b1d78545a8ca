import { GatewayError, errorKindForStatus } from '@switchyard/canonical';
import type { RenderedError } from '../wire-format.ts';

/** Errors in the OpenAI envelope `{error:{message,type,param,code}}` (protocols.md §7). */

export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

interface ErrorDescription {
  status: number;
  type: string;
  code: string | null;
}

/** Status, OpenAI `type` and default `code` for each kind; an explicit code on the error wins. */
function describeError(error: GatewayError): ErrorDescription {
  const code = error.code ?? null;
  const status = error.status;
  switch (error.kind) {
    case 'invalid_request':
    case 'unprocessable':
      return { status, type: 'invalid_request_error', code };
    case 'authentication':
      return { status, type: 'authentication_error', code: code ?? 'invalid_api_key' };
    case 'permission':
      return { status, type: 'permission_error', code };
    case 'not_found':
      return { status, type: 'invalid_request_error', code: code ?? 'model_not_found' };
    case 'request_too_large':
      return { status, type: 'invalid_request_error', code: code ?? 'request_too_large' };
    case 'client_closed':
      return { status, type: 'invalid_request_error', code: code ?? 'client_closed' };
    case 'rate_limited':
      // Switchyard's own limiter names the window that ran out, as OpenAI does (protocols.md §7.2).
      return { status, type: error.limit === 'tokens' ? 'tokens' : 'requests', code: code ?? 'rate_limit_exceeded' };
    case 'quota_exhausted':
      return { status, type: 'insufficient_quota', code: code ?? 'insufficient_quota' };
    case 'internal':
      return { status, type: 'server_error', code: code ?? 'server_error' };
    case 'overloaded':
      // OpenAI clients know 503 for overload; 529 is a messages-only status.
      return { status: status === 529 ? 503 : status, type: 'server_error', code };
    case 'upstream_error':
    case 'unavailable':
    case 'upstream_timeout':
      return { status, type: 'server_error', code };
    default: {
      const exhaustive: never = error.kind;
      return exhaustive;
    }
  }
}

export function renderError(error: GatewayError, requestId: string): RenderedError {
  const description = describeError(error);
  const headers: Record<string, string> = { ...error.headers, 'x-request-id': requestId };
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(Math.ceil(error.retryAfterSeconds));
  // Retrying an exhausted quota cannot succeed; the Stainless SDKs obey this header first (protocols.md §7.4).
  if (error.kind === 'quota_exhausted') headers['x-should-retry'] = 'false';
  const body: ErrorBody = {
    error: { message: error.message, type: description.type, param: error.param ?? null, code: description.code },
  };
  return { status: description.status, body, headers };
}

/** The `error` event that ends a stream after its first byte (protocols.md §7.3). */
export function streamErrorEvent(error: GatewayError, sequenceNumber: number): string {
  const data = JSON.stringify({
    type: 'error',
    code: describeError(error).code,
    message: error.message,
    param: error.param ?? null,
    sequence_number: sequenceNumber,
  });
  return `event: error\ndata: ${data}\n\n`;
}

/**
 * Without the stream's state the next sequence number is unknown; 0 is what a client sees when
 * the failure precedes any event. Translated streams end through the encoder, which numbers
 * the error event correctly.
 */
export function renderStreamError(error: GatewayError, _requestId: string): string {
  return streamErrorEvent(error, 0);
}

/** An upstream's error answer (parsed envelope, raw text or anything else) → GatewayError. */
export function errorFromUpstream(status: number, body: unknown): GatewayError {
  const envelope = readEnvelope(typeof body === 'string' ? parseJson(body) : body);
  const text = typeof body === 'string' && body.trim() !== '' ? body : undefined;
  const message = envelope?.message ?? text ?? `The upstream answered HTTP ${status}.`;
  const code = envelope?.code;
  const type = envelope?.type;
  const kind = code === 'insufficient_quota' ? 'quota_exhausted' : errorKindForStatus(status);
  return new GatewayError(kind, message, {
    status,
    ...(type === undefined ? {} : { upstreamType: type }),
    ...(envelope?.param === undefined ? {} : { param: envelope.param }),
    ...(code === undefined ? {} : { code }),
    ...(kind === 'rate_limited' && (type === 'tokens' || type === 'requests') ? { limit: type } : {}),
  });
}

interface Envelope {
  message?: string;
  type?: string;
  param?: string;
  code?: string;
}

function readEnvelope(body: unknown): Envelope | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as Record<string, unknown>)['error'];
  if (typeof error !== 'object' || error === null) return undefined;
  const fields = error as Record<string, unknown>;
  const envelope: Envelope = {};
  for (const key of ['message', 'type', 'param', 'code'] as const) {
    const value = fields[key];
    if (typeof value === 'string') envelope[key] = value;
  }
  return envelope;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
