import { GatewayError } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { errorFromUpstream, renderError, renderStreamError } from './errors.ts';

describe('renderError', () => {
  it.each([
    [new GatewayError('invalid_request', 'Bad temperature', { param: 'temperature' }), 400, 'invalid_request_error', 'temperature', null],
    [new GatewayError('authentication', 'Invalid API key'), 401, 'authentication_error', null, 'invalid_api_key'],
    [new GatewayError('permission', 'Model not allowed'), 403, 'permission_error', null, null],
    [new GatewayError('not_found', 'Unknown model gpt-9', { param: 'model' }), 404, 'invalid_request_error', 'model', 'model_not_found'],
    [new GatewayError('not_found', 'No such response', { code: 'response_not_found' }), 404, 'invalid_request_error', null, 'response_not_found'],
    [new GatewayError('request_too_large', 'Body over 32 MiB'), 413, 'invalid_request_error', null, 'request_too_large'],
    [new GatewayError('rate_limited', 'Too many tokens', { limit: 'tokens' }), 429, 'tokens', null, 'rate_limit_exceeded'],
    [new GatewayError('rate_limited', 'Too many requests', { limit: 'concurrency' }), 429, 'requests', null, 'rate_limit_exceeded'],
    [new GatewayError('quota_exhausted', 'Monthly budget spent'), 429, 'insufficient_quota', null, 'insufficient_quota'],
    [new GatewayError('internal', 'Oops'), 500, 'server_error', null, 'server_error'],
    [new GatewayError('upstream_error', 'Bad gateway'), 502, 'server_error', null, null],
    [new GatewayError('unavailable', 'No deployment'), 503, 'server_error', null, null],
    [new GatewayError('overloaded', 'Overloaded'), 503, 'server_error', null, null],
    [new GatewayError('upstream_timeout', 'Timed out'), 504, 'server_error', null, null],
  ])('should render %s as %i %s', (error, status, type, param, code) => {
    const rendered = renderError(error, 'req_1');
    expect([rendered.status, rendered.body]).toEqual([status, { error: { message: error.message, type, param, code } }]);
  });

  it('should send the request id, retry-after, rate-limit headers and x-should-retry where they apply', () => {
    const limited = new GatewayError('rate_limited', 'Slow down', { retryAfterSeconds: 1.2, headers: { 'x-ratelimit-remaining-requests': '0' } });
    expect(renderError(limited, 'req_1').headers).toEqual({ 'x-ratelimit-remaining-requests': '0', 'x-request-id': 'req_1', 'retry-after': '2' });
    expect(renderError(new GatewayError('quota_exhausted', 'Spent'), 'req_2').headers).toEqual({ 'x-request-id': 'req_2', 'x-should-retry': 'false' });
  });
});

describe('renderStreamError', () => {
  it('should write the error event with all its fields', () => {
    expect(renderStreamError(new GatewayError('upstream_timeout', 'Timed out', { param: 'input' }), 'req_1')).toBe(
      'event: error\ndata: {"type":"error","code":null,"message":"Timed out","param":"input","sequence_number":0}\n\n',
    );
  });
});

describe('errorFromUpstream', () => {
  it('should keep the envelope message, type, param and code', () => {
    const error = errorFromUpstream(400, {
      error: { message: 'Input too long', type: 'invalid_request_error', param: 'input', code: 'context_length_exceeded' },
    });
    expect([error.kind, error.status, error.message, error.upstreamType, error.param, error.code]).toEqual([
      'invalid_request',
      400,
      'Input too long',
      'invalid_request_error',
      'input',
      'context_length_exceeded',
    ]);
  });

  it('should read which window ran out and tell quota from rate limits', () => {
    const limited = errorFromUpstream(429, JSON.stringify({ error: { message: 'TPM', type: 'tokens', param: null, code: 'rate_limit_exceeded' } }));
    expect([limited.kind, limited.limit]).toEqual(['rate_limited', 'tokens']);
    expect(errorFromUpstream(429, { error: { message: 'Quota', type: 'insufficient_quota', code: 'insufficient_quota' } }).kind).toBe('quota_exhausted');
  });

  it('should keep a text body as the message and name the status otherwise', () => {
    expect([errorFromUpstream(503, 'upstream connect error').message, errorFromUpstream(503, 'x').kind]).toEqual(['upstream connect error', 'unavailable']);
    expect(errorFromUpstream(502, undefined).message).toBe('The upstream answered HTTP 502.');
  });

  it('should render an upstream error back in the same envelope', () => {
    const envelope = { error: { message: 'Input too long', type: 'invalid_request_error', param: 'input', code: 'context_length_exceeded' } };
    expect(renderError(errorFromUpstream(400, envelope), 'req_1').body).toEqual(envelope);
  });
});
