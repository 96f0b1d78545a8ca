import { describe, expect, it } from 'vitest';
import { estimateTokensFromBytes, formatDuration, rateLimitHeaders } from './admission.ts';

describe('admission helpers', () => {
  it('should format durations as OpenAI does', () => {
    expect(formatDuration(12)).toBe('12ms');
    expect(formatDuration(1000)).toBe('1s');
    expect(formatDuration(360_000)).toBe('6m0s');
    expect(formatDuration(61_500)).toBe('1m2s');
  });

  it('should write the requests and tokens header trios', () => {
    expect(
      rateLimitHeaders({
        allowed: true,
        retryAfterMs: 0,
        degraded: false,
        requests: { limit: 60, remaining: 59, resetMs: 1000 },
        tokens: { limit: 1000, remaining: 900, resetMs: 6000 },
      }),
    ).toEqual({
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-remaining-requests': '59',
      'x-ratelimit-reset-requests': '1s',
      'x-ratelimit-limit-tokens': '1000',
      'x-ratelimit-remaining-tokens': '900',
      'x-ratelimit-reset-tokens': '6s',
    });
  });

  it('should estimate at least one token', () => {
    expect(estimateTokensFromBytes(0)).toBe(1);
    expect(estimateTokensFromBytes(400)).toBe(100);
  });
});
