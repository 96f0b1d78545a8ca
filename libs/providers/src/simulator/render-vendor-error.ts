/** The four vendor formats the simulator speaks, by the ids of design.md §1. */
export type VendorFormat = 'chat-completions' | 'responses' | 'messages' | 'generate-content';

export interface VendorError {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface VendorErrorOptions {
  /** Seconds for `retry-after` (and Gemini's RetryInfo) on a 429. */
  retryAfter?: number;
  /** Echoed as the messages `request_id` and `request-id` header. */
  requestId?: string;
  /** OpenAI `code` override, e.g. null for an unknown URL. */
  code?: string | null;
}

// protocols.md §7.2; statuses not listed fall back by class (4xx / 5xx).
const OPENAI_TYPES: Record<number, [type: string, code: string | null]> = {
  400: ['invalid_request_error', null],
  401: ['invalid_request_error', 'invalid_api_key'],
  403: ['invalid_request_error', 'unsupported_country_region_territory'],
  404: ['invalid_request_error', 'model_not_found'],
  429: ['requests', 'rate_limit_exceeded'],
  500: ['server_error', 'server_error'],
};

const MESSAGES_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const GEMINI_STATUSES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

function renderOpenAiError(status: number, message: string, options: VendorErrorOptions): string {
  const [type, code] = OPENAI_TYPES[status] ?? (status >= 500 ? ['server_error', null] : ['invalid_request_error', null]);
  return JSON.stringify({ error: { message, type, param: null, code: options.code === undefined ? code : options.code } });
}

function renderMessagesError(status: number, message: string, options: VendorErrorOptions): string {
  const type = MESSAGES_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return JSON.stringify({ type: 'error', error: { type, message }, request_id: options.requestId ?? null });
}

function renderGeminiError(status: number, message: string, options: VendorErrorOptions): string {
  const details =
    status === 429
      ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${options.retryAfter ?? 1}s` }]
      : [];
  const statusName = GEMINI_STATUSES[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
  return JSON.stringify({ error: { code: status, message, status: statusName, details } });
}

/** An error answer in the vendor's envelope and with its headers (protocols.md §7). */
export function renderVendorError(
  format: VendorFormat,
  status: number,
  message: string,
  options: VendorErrorOptions = {},
): VendorError {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (status === 429) headers['retry-after'] = String(options.retryAfter ?? 1);
  let body: string;
  if (format === 'messages') {
    body = renderMessagesError(status, message, options);
    if (options.requestId !== undefined) headers['request-id'] = options.requestId;
  } else if (format === 'generate-content') {
    body = renderGeminiError(status, message, options);
  } else {
    body = renderOpenAiError(status, message, options);
  }
  return { status, headers, body };
}
