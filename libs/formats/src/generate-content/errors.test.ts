import { GatewayError } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { errorFromUpstream, renderError } from './errors.ts';

const requestInfo = { '@type': 'type.googleapis.com/google.rpc.RequestInfo', requestId: 'req_1' };

describe('renderError', () => {
  it('should render a missing key as 401 UNAUTHENTICATED', () => {
    expect(renderError(new GatewayError('authentication', 'Missing API key.'), 'req_1')).toEqual({
      status: 401,
      body: { error: { code: 401, message: 'Missing API key.', status: 'UNAUTHENTICATED', details: [requestInfo] } },
      headers: {},
    });
  });

  it('should render a rate limit as 429 RESOURCE_EXHAUSTED with retry-after and RetryInfo', () => {
    const error = new GatewayError('rate_limited', 'Too many requests.', { retryAfterSeconds: 17, headers: { 'x-ratelimit-limit-requests': '600' } });
    expect(renderError(error, 'req_1')).toEqual({
      status: 429,
      body: {
        error: {
          code: 429,
          message: 'Too many requests.',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '17s' }, requestInfo],
        },
      },
      headers: { 'x-ratelimit-limit-requests': '600', 'retry-after': '17' },
    });
  });

  it('should tell clients not to retry an exhausted quota', () => {
    expect(renderError(new GatewayError('quota_exhausted', 'Monthly budget spent.'), 'req_1').headers).toEqual({ 'x-should-retry': 'false' });
  });

  it('should name the param in a BadRequest field violation', () => {
    const error = new GatewayError('invalid_request', 'Too big.', { param: 'generationConfig.temperature' });
    expect(renderError(error, 'req_1').body).toEqual({
      error: {
        code: 400,
        message: 'Too big.',
        status: 'INVALID_ARGUMENT',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'generationConfig.temperature', description: 'Too big.' }] },
          requestInfo,
        ],
      },
    });
  });

  it('should map every kind to its status code and Google status', () => {
    const rendered = (kind: GatewayError['kind']) => {
      const { status, body } = renderError(new GatewayError(kind, 'x'), 'req_1');
      return [status, (body as { error: { status: string } }).error.status];
    };
    expect(rendered('permission')).toEqual([403, 'PERMISSION_DENIED']);
    expect(rendered('not_found')).toEqual([404, 'NOT_FOUND']);
    expect(rendered('request_too_large')).toEqual([413, 'INVALID_ARGUMENT']);
    expect(rendered('client_closed')).toEqual([499, 'CANCELLED']);
    expect(rendered('internal')).toEqual([500, 'INTERNAL']);
    expect(rendered('upstream_error')).toEqual([502, 'UNAVAILABLE']);
    expect(rendered('unavailable')).toEqual([503, 'UNAVAILABLE']);
    expect(rendered('upstream_timeout')).toEqual([504, 'DEADLINE_EXCEEDED']);
    expect(rendered('overloaded')).toEqual([503, 'UNAVAILABLE']);
  });

  it('should keep an upstream status and Google status name passed on', () => {
    const error = new GatewayError('invalid_request', 'User location is not supported.', { status: 400, upstreamType: 'FAILED_PRECONDITION' });
    expect(renderError(error, 'req_1').body).toEqual({
      error: { code: 400, message: 'User location is not supported.', status: 'FAILED_PRECONDITION', details: [requestInfo] },
    });
    const conflict = renderError(new GatewayError('invalid_request', 'Conflict.', { status: 409, upstreamType: 'conflict_error' }), 'req_1');
    expect([conflict.status, (conflict.body as { error: { status: string } }).error.status]).toEqual([409, 'ABORTED']);
  });
});

describe('errorFromUpstream', () => {
  it('should read the Google envelope with its status name and retry delay', () => {
    const error = errorFromUpstream(429, {
      error: {
        code: 429,
        message: 'Quota exceeded.',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '16.4s' }],
      },
    });
    expect({ kind: error.kind, status: error.status, message: error.message, upstreamType: error.upstreamType, retryAfterSeconds: error.retryAfterSeconds }).toEqual({
      kind: 'rate_limited',
      status: 429,
      message: 'Quota exceeded.',
      upstreamType: 'RESOURCE_EXHAUSTED',
      retryAfterSeconds: 17,
    });
  });

  it('should read a rejected key as an authentication failure', () => {
    const error = errorFromUpstream(400, {
      error: {
        code: 400,
        message: 'API key not valid.',
        status: 'INVALID_ARGUMENT',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }],
      },
    });
    expect({ kind: error.kind, status: error.status, upstreamType: error.upstreamType }).toEqual({ kind: 'authentication', status: 401, upstreamType: undefined });
  });

  it('should read the array-wrapped envelope and plain text', () => {
    expect(errorFromUpstream(404, [{ error: { code: 404, message: 'models/x is not found.', status: 'NOT_FOUND' } }]).message).toBe('models/x is not found.');
    const text = errorFromUpstream(502, 'Bad Gateway');
    expect({ kind: text.kind, status: text.status, message: text.message }).toEqual({ kind: 'upstream_error', status: 502, message: 'Bad Gateway' });
  });
});
