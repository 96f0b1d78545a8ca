import { describe, expect, it } from 'vitest';
import { convertUsageFromCanonical, convertUsageToCanonical } from './convert-usage.ts';

describe('convertUsageToCanonical', () => {
  it('should count cache reads and writes into the input total', () => {
    expect(
      convertUsageToCanonical({ input_tokens: 410, output_tokens: 52, cache_creation_input_tokens: 100, cache_read_input_tokens: 1024 }),
    ).toEqual({ inputTokens: 1534, outputTokens: 52, cacheReadTokens: 1024, cacheWriteTokens: 100 });
  });

  it('should treat null cache fields as absent', () => {
    expect(convertUsageToCanonical({ input_tokens: 10, output_tokens: 2, cache_creation_input_tokens: null, cache_read_input_tokens: null })).toEqual({
      inputTokens: 10,
      outputTokens: 2,
    });
  });
});

describe('convertUsageFromCanonical', () => {
  it('should take cached tokens out of input_tokens', () => {
    expect(convertUsageFromCanonical({ inputTokens: 1534, outputTokens: 52, cacheReadTokens: 1024, cacheWriteTokens: 100 })).toEqual({
      input_tokens: 410,
      output_tokens: 52,
      cache_creation_input_tokens: 100,
      cache_read_input_tokens: 1024,
    });
  });

  it('should never report negative input tokens', () => {
    expect(convertUsageFromCanonical({ inputTokens: 5, outputTokens: 1, cacheReadTokens: 10 }).input_tokens).toBe(0);
  });
});
