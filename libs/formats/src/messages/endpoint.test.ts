import { describe, expect, it } from 'vitest';
import { generatePath, requestHeaders } from './endpoint.ts';

describe('messages upstream endpoint', () => {
  it('should send the version header on every call, and the key only when there is one', () => {
    expect(generatePath()).toBe('/v1/messages');
    expect(requestHeaders('sk-up')).toEqual({ 'x-api-key': 'sk-up', 'anthropic-version': '2023-06-01' });
    expect(requestHeaders(undefined)).toEqual({ 'anthropic-version': '2023-06-01' });
  });
});
