/**
 * An admin API failure: rendered by the admin error handler as
 * `{"error":{"message","type","code"}}` with `statusCode` as the HTTP status. The property
 * names match fastify's own errors, so both render the same way.
 */
export class AdminError extends Error {
  readonly statusCode: number;
  readonly code: string;
  /** The request field at fault, for validation errors. */
  readonly param: string | undefined;

  constructor(statusCode: number, code: string, message: string, options: { param?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AdminError';
    this.statusCode = statusCode;
    this.code = code;
    this.param = options.param;
  }
}

/** The error `type` for a status, in the spirit of the vendor APIs' error types. */
export function errorTypeFor(statusCode: number): string {
  switch (statusCode) {
    case 400:
    case 413:
    case 415:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 409:
      return 'conflict_error';
    case 503:
      return 'unavailable_error';
    default:
      return statusCode < 500 ? 'invalid_request_error' : 'api_error';
  }
}
