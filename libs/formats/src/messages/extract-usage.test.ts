import { describe, expect, it } from 'vitest';
import { parseSse, readFixture } from './__fixtures__/read-fixture.ts';
import { extractUsage } from './extract-usage.ts';

function usageOf(data: Record<string, unknown>) {
  return extractUsage({ event: String(data.type), data: JSON.stringify(data) });
}

describe('extractUsage', () => {
  it('should read input counts from message_start and output from message_delta of a recorded stream', () => {
    const found = parseSse(readFixture('text.chunks.txt'))
      .map(extractUsage)
      .filter((usage) => usage !== undefined);
    expect(found).toEqual([{ inputTokens: 1049, cacheReadTokens: 1024, cacheWriteTokens: 0 }, { outputTokens: 9 }]);
  });

  it('should take input counts from message_delta only when all three are present', () => {
    expect(
      usageOf({
        type: 'message_delta',
        delta: { stop_reason: 'end_turn' },
        usage: { output_tokens: 9, input_tokens: 5, cache_creation_input_tokens: 1, cache_read_input_tokens: 2, output_tokens_details: { thinking_tokens: 4 } },
      }),
    ).toEqual({ inputTokens: 8, cacheWriteTokens: 1, cacheReadTokens: 2, outputTokens: 9, reasoningTokens: 4 });
    expect(
      usageOf({ type: 'message_delta', usage: { output_tokens: 9, input_tokens: 5, cache_creation_input_tokens: null, cache_read_input_tokens: null } }),
    ).toEqual({ outputTokens: 9 });
  });

  it('should ignore events without usage, even when their text mentions it', () => {
    expect(usageOf({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'the "usage" field' } })).toBeUndefined();
    expect(usageOf({ type: 'ping' })).toBeUndefined();
  });
});
