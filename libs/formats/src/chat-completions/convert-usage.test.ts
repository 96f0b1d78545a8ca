import { describe, expect, it } from 'vitest';
import { convertToCanonicalUsage, convertToChatUsage } from './convert-usage.ts';

describe('convertToCanonicalUsage', () => {
  it('should keep totals, which already include cached and reasoning tokens', () => {
    expect(
      convertToCanonicalUsage({
        prompt_tokens: 1940,
        completion_tokens: 300,
        prompt_tokens_details: { cached_tokens: 1920, cache_write_tokens: 12 },
        completion_tokens_details: { reasoning_tokens: 256 },
      }),
    ).toEqual({ inputTokens: 1940, outputTokens: 300, cacheReadTokens: 1920, cacheWriteTokens: 12, reasoningTokens: 256 });
  });

  it('should leave details out when the upstream sent none', () => {
    expect(convertToCanonicalUsage({ prompt_tokens: 5, completion_tokens: 1 })).toEqual({ inputTokens: 5, outputTokens: 1 });
  });
});

describe('convertToChatUsage', () => {
  it('should render totals and details, cache writes only when known', () => {
    expect(convertToChatUsage({ inputTokens: 410, outputTokens: 52, cacheReadTokens: 1024, reasoningTokens: 20 })).toEqual({
      prompt_tokens: 410,
      completion_tokens: 52,
      total_tokens: 462,
      prompt_tokens_details: { cached_tokens: 1024 },
      completion_tokens_details: { reasoning_tokens: 20 },
    });
    expect(convertToChatUsage({ inputTokens: 1, outputTokens: 1, cacheWriteTokens: 3 }).prompt_tokens_details).toEqual({
      cached_tokens: 0,
      cache_write_tokens: 3,
    });
  });

  it('should round-trip chat usage with cached and reasoning tokens', () => {
    const usage = {
      prompt_tokens: 100,
      completion_tokens: 40,
      total_tokens: 140,
      prompt_tokens_details: { cached_tokens: 64, cache_write_tokens: 8 },
      completion_tokens_details: { reasoning_tokens: 24 },
    };
    expect(convertToChatUsage(convertToCanonicalUsage(usage))).toEqual(usage);
  });
});
