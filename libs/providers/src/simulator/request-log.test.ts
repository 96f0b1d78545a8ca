import { describe, expect, it } from 'vitest';
import { createRequestLog, redactHeaders, redactPath } from './request-log.ts';

describe('createRequestLog', () => {
  it('should keep only the newest entries, oldest first', () => {
    const log = createRequestLog(3);
    for (const path of ['/1', '/2', '/3', '/4', '/5']) log.add({ method: 'GET', path, headers: {}, body: null });
    expect(log.list().map((entry) => entry.path)).toEqual(['/3', '/4', '/5']);
    log.clear();
    expect(log.list()).toEqual([]);
  });
});

describe('redaction', () => {
  it('should hide credentials but record that they were sent', () => {
    expect(redactHeaders({ authorization: 'Bearer x', 'x-api-key': 'y', 'x-goog-api-key': 'z', accept: '*/*' })).toEqual({
      authorization: '<redacted>',
      'x-api-key': '<redacted>',
      'x-goog-api-key': '<redacted>',
      accept: '*/*',
    });
    expect(redactPath('/v1beta/models/m:generateContent?alt=sse&key=abc')).toBe('/v1beta/models/m:generateContent?alt=sse&key=<redacted>');
  });
});
