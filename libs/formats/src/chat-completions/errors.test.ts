import { GatewayError } from '@switchyard/canonical';
import type { ErrorKind } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { errorFromUpstream, renderError, renderStreamError } from './errors.ts';

describe('renderError', () => {
  it.each<[ErrorKind, number, string, string | null]>([
    ['invalid_request', 400, 'invalid_request_error', null],
    ['authentication', 401, 'authentication_error', 'invalid_api_key'],
    ['permission', 403, 'permission_error', null],
    ['not_found', 404, 'invalid_request_error', 'model_not_found'],
    ['request_too_large', 413, 'invalid_request_error', null],
    ['rate_limited', 429, 'requests', 'rate_limit_exceeded'],
    ['quota_exhausted', 429, 'insufficient_quota', 'insufficient_quota'],
    ['internal', 500, 'server_error', null],
    ['upstream_error', 502, 'server_error', null],
    ['unavailable', 503, 'server_error', null],
    ['overloaded', 503, 'server_error', null],
    ['upstream_timeout', 504, 'server_error', null],
  ])('should render %s as %i %s', (kind, status, type, code) => {
    const rendered = renderError(new GatewayError(kind, 'Something happened.'), 'req_42');
    expect(rendered.status).toBe(status);
    expect(rendered.body).toEqual({ error: { message: 'Something happened.', type, param: null, code } });
    expect(rendered.headers['x-request-id']).toBe('req_42');
  });

  it('should keep the given param and code', () => {
    const error = new GatewayError('not_found', 'Unknown model gpt-9', { param: 'model', code: 'model_gone' });
    expect(renderError(error, 'r').body).toEqual({
      error: { message: 'Unknown model gpt-9', type: 'invalid_request_error', param: 'model', code: 'model_gone' },
    });
  });

  it('should name the token window and send retry-after and the limiter headers on a 429', () => {
    const error = new GatewayError('rate_limited', 'Too many tokens.', {
      limit: 'tokens',
      retryAfterSeconds: 2.4,
      headers: { 'x-ratelimit-remaining-tokens': '0' },
    });
    const rendered = renderError(error, 'r');
    expect(rendered.body).toMatchObject({ error: { type: 'tokens', code: 'rate_limit_exceeded' } });
    expect(rendered.headers).toEqual({ 'x-ratelimit-remaining-tokens': '0', 'retry-after': '3', 'x-request-id': 'r' });
  });

  it('should send retry-after on every 429 and x-should-retry false on an exhausted quota', () => {
    expect(renderError(new GatewayError('rate_limited', 'Slow down.'), 'r').headers['retry-after']).toBe('1');
    expect(renderError(new GatewayError('quota_exhausted', 'Budget spent.'), 'r').headers).toEqual({
      'x-should-retry': 'false',
      'x-request-id': 'r',
    });
  });

  it('should keep an explicit status', () => {
    expect(renderError(new GatewayError('invalid_request', 'Conflict.', { status: 409 }), 'r').status).toBe(409);
  });
});

describe('renderStreamError', () => {
  it('should render one data event with all four keys', () => {
    expect(renderStreamError(new GatewayError('upstream_timeout', 'Upstream timed out.'))).toBe(
      'data: {"error":{"message":"Upstream timed out.","type":"server_error","param":null,"code":null}}\n\n',
    );
  });
});

describe('errorFromUpstream', () => {
  it('should read the OpenAI envelope', () => {
    const error = errorFromUpstream(404, {
      error: { message: 'The model `gpt-9` does not exist', type: 'invalid_request_error', param: 'model', code: 'model_not_found' },
    });
    expect(error).toMatchObject({
      kind: 'not_found',
      status: 404,
      message: 'The model `gpt-9` does not exist',
      upstreamType: 'invalid_request_error',
      param: 'model',
      code: 'model_not_found',
    });
  });

  it.each([
    [429, { error: 'Too many requests' }, 'rate_limited', 'Too many requests'],
    [400, { message: 'bad things', code: 40001 }, 'invalid_request', 'bad things'],
    [502, '<html><body>Bad Gateway</body></html>', 'upstream_error', '<html><body>Bad Gateway</body></html>'],
    [503, '', 'unavailable', 'The upstream answered HTTP 503.'],
    [500, undefined, 'internal', 'The upstream answered HTTP 500.'],
  ])('should read %i %j', (status, body, kind, message) => {
    expect(errorFromUpstream(status, body)).toMatchObject({ kind, message });
  });

  it('should keep numeric codes as text and let 5xx statuses follow the kind', () => {
    const error = errorFromUpstream(520, { message: 'x', code: 40001 });
    expect([error.kind, error.status, error.code]).toEqual(['upstream_error', 502, '40001']);
  });

  it('should shorten a huge text body', () => {
    expect(errorFromUpstream(502, 'x'.repeat(5000)).message.length).toBeLessThanOrEqual(501);
  });
});
