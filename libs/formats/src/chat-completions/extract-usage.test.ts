import { describe, expect, it } from 'vitest';
import { extractUsage } from './extract-usage.ts';

describe('extractUsage', () => {
  it('should read the usage chunk', () => {
    const data =
      '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":82,"completion_tokens":17,"total_tokens":99,"prompt_tokens_details":{"cached_tokens":64}}}';
    expect(extractUsage({ data })).toEqual({ inputTokens: 82, outputTokens: 17, cacheReadTokens: 64 });
  });

  it.each([
    ['a chunk without usage', '{"choices":[{"index":0,"delta":{"content":"hi"}}]}'],
    ['a chunk with null usage', '{"choices":[{"index":0,"delta":{"content":"hi"}}],"usage":null}'],
    ['a spaced null usage', '{"choices":[],"usage": null}'],
    ['text that mentions usage', '{"choices":[{"index":0,"delta":{"content":"\\"usage\\": {1}"}}]}'],
    ['[DONE]', '[DONE]'],
    ['broken JSON with usage', '{"usage":{'],
  ])('should return nothing for %s', (_name, data) => {
    expect(extractUsage({ data })).toBeUndefined();
  });
});
