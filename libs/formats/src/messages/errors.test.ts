import { ERROR_KINDS, GatewayError, type ErrorKind } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { errorFromUpstream, renderError, renderStreamError } from './errors.ts';

describe('renderError', () => {
  it('should render every kind with the vendor status and error type', () => {
    const expected: Record<ErrorKind, [number, string]> = {
      invalid_request: [400, 'invalid_request_error'],
      authentication: [401, 'authentication_error'],
      permission: [403, 'permission_error'],
      not_found: [404, 'not_found_error'],
      request_too_large: [413, 'request_too_large'],
      unprocessable: [422, 'invalid_request_error'],
      rate_limited: [429, 'rate_limit_error'],
      quota_exhausted: [429, 'rate_limit_error'],
      client_closed: [499, 'invalid_request_error'],
      internal: [500, 'api_error'],
      upstream_error: [502, 'api_error'],
      unavailable: [503, 'api_error'],
      upstream_timeout: [504, 'timeout_error'],
      overloaded: [529, 'overloaded_error'],
    };
    for (const kind of Object.keys(ERROR_KINDS) as ErrorKind[]) {
      const rendered = renderError(new GatewayError(kind, 'Something.'), 'req_1');
      expect([rendered.status, (rendered.body as { error: { type: string } }).error.type]).toEqual(expected[kind]);
    }
  });

  it('should write the envelope with the request id in body and header', () => {
    expect(renderError(new GatewayError('overloaded', 'Overloaded'), 'req_011A')).toEqual({
      status: 529,
      body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_011A' },
      headers: { 'request-id': 'req_011A' },
    });
  });

  it('should tell clients when to retry and when not to', () => {
    const limited = new GatewayError('rate_limited', 'Slow down.', { retryAfterSeconds: 1.2, headers: { 'x-ratelimit-limit-requests': '60' } });
    expect(renderError(limited, 'r').headers).toEqual({ 'x-ratelimit-limit-requests': '60', 'request-id': 'r', 'retry-after': '2' });
    expect(renderError(new GatewayError('quota_exhausted', 'Budget spent.'), 'r').headers).toEqual({ 'request-id': 'r', 'x-should-retry': 'false' });
  });

  it('should echo an upstream type only when messages clients know it', () => {
    const billing = new GatewayError('invalid_request', 'Credit balance too low.', { status: 402, upstreamType: 'billing_error' });
    expect(renderError(billing, 'r')).toMatchObject({ status: 402, body: { error: { type: 'billing_error' } } });
    const gemini = new GatewayError('rate_limited', 'Quota.', { upstreamType: 'RESOURCE_EXHAUSTED' });
    expect(renderError(gemini, 'r').body).toMatchObject({ error: { type: 'rate_limit_error' } });
  });
});

describe('renderStreamError', () => {
  it('should write the error event with its event line', () => {
    expect(renderStreamError(new GatewayError('upstream_timeout', 'Timed out.'))).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"timeout_error","message":"Timed out."}}\n\n',
    );
  });
});

describe('errorFromUpstream', () => {
  it('should read the messages envelope, keeping message and type', () => {
    const error = errorFromUpstream(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_1' });
    expect([error.kind, error.status, error.message, error.upstreamType, error.retryable]).toEqual([
      'overloaded',
      529,
      'Overloaded',
      'overloaded_error',
      true,
    ]);
  });

  it('should keep client-error statuses the upstream chose', () => {
    const error = errorFromUpstream(402, { type: 'error', error: { type: 'billing_error', message: 'Credit balance too low.' } });
    expect([error.kind, error.status, error.upstreamType]).toEqual(['invalid_request', 402, 'billing_error']);
    expect(errorFromUpstream(429, { type: 'error', error: { type: 'rate_limit_error', message: 'x' } }).kind).toBe('rate_limited');
  });

  it('should fall back to the text of a non-JSON answer, or the status', () => {
    expect(errorFromUpstream(502, '<html>Bad gateway</html>\n')).toMatchObject({ kind: 'upstream_error', message: '<html>Bad gateway</html>' });
    expect(errorFromUpstream(500, undefined)).toMatchObject({ kind: 'internal', message: 'The upstream answered with HTTP 500.' });
  });
});
