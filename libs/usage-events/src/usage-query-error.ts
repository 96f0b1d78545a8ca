/**
 * A usage query the caller got wrong (bad day, reversed or too long range). Carries
 * `statusCode` 400 so fastify's default error handler answers it as a client error.
 */
export class UsageQueryError extends Error {
  readonly statusCode = 400;
  readonly code = 'invalid_request';

  constructor(message: string) {
    super(message);
    this.name = 'UsageQueryError';
  }
}

export function isUsageQueryError(error: unknown): error is UsageQueryError {
  return error instanceof Error && error.name === 'UsageQueryError';
}
