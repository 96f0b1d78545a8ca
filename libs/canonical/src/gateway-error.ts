/**
 * Every failure Switchyard reports has one of these kinds. Each format's `errors.ts` maps a kind
 * to that vendor's status and error type; nothing matches on message strings.
 */
export const ERROR_KINDS = {
  invalid_request: 400,
  authentication: 401,
  permission: 403,
  not_found: 404,
  request_too_large: 413,
  unprocessable: 422,
  rate_limited: 429,
  /** A quota or budget that retrying cannot fix (sent with x-should-retry: false). */
  quota_exhausted: 429,
  client_closed: 499,
  internal: 500,
  upstream_error: 502,
  unavailable: 503,
  upstream_timeout: 504,
  overloaded: 529,
} as const;

export type ErrorKind = keyof typeof ERROR_KINDS;

export interface GatewayErrorOptions {
  /** The request field at fault (chat/responses `param`). */
  param?: string;
  /** A machine code for the client (`model_not_found`, `rate_limit_exceeded`, …). */
  code?: string;
  /** Overrides the kind's default status (e.g. an upstream's own 4xx passed on). */
  status?: number;
  /** Seconds until a retry may succeed (429/503). */
  retryAfterSeconds?: number;
  /** Extra response headers (x-ratelimit-*). */
  headers?: Record<string, string>;
  /** For 429s: which window ran out (`requests` | `tokens`), the OpenAI error `type`. */
  limit?: 'requests' | 'tokens' | 'concurrency' | 'budget';
  /** The upstream's own error type (`overloaded_error`, `RESOURCE_EXHAUSTED`), kept for same-format rendering. */
  upstreamType?: string;
  cause?: unknown;
}

const MARKER = Symbol.for('switchyard.gateway-error');

export class GatewayError extends Error {
  readonly kind: ErrorKind;
  readonly status: number;
  readonly param: string | undefined;
  readonly code: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly headers: Record<string, string> | undefined;
  readonly limit: GatewayErrorOptions['limit'];
  readonly upstreamType: string | undefined;
  readonly [MARKER] = true;

  constructor(kind: ErrorKind, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.kind = kind;
    this.status = options.status ?? ERROR_KINDS[kind];
    this.param = options.param;
    this.code = options.code;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers;
    this.limit = options.limit;
    this.upstreamType = options.upstreamType;
  }

  /** Works across duplicated package copies, unlike instanceof. */
  static isInstance(value: unknown): value is GatewayError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  /** Whether a retry or fallback against another deployment may succeed. */
  get retryable(): boolean {
    return (
      this.kind === 'rate_limited' ||
      this.kind === 'upstream_error' ||
      this.kind === 'upstream_timeout' ||
      this.kind === 'unavailable' ||
      this.kind === 'overloaded' ||
      this.status === 408 ||
      this.status === 409 ||
      this.status >= 500
    );
  }
}

/** Maps an HTTP status to the closest error kind (upstream errors, parsed error bodies). */
export function errorKindForStatus(status: number): ErrorKind {
  switch (status) {
    case 400:
      return 'invalid_request';
    case 401:
      return 'authentication';
    case 403:
      return 'permission';
    case 404:
      return 'not_found';
    case 408:
      return 'upstream_timeout';
    case 413:
      return 'request_too_large';
    case 422:
      return 'unprocessable';
    case 429:
      return 'rate_limited';
    case 499:
      return 'client_closed';
    case 503:
      return 'unavailable';
    case 504:
      return 'upstream_timeout';
    case 529:
      return 'overloaded';
    default:
      if (status >= 500) return status === 500 ? 'internal' : 'upstream_error';
      return 'invalid_request';
  }
}
