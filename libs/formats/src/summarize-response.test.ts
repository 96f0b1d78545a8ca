import type { CanonicalResponse, CanonicalUsage } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { wireFormats } from './registry.ts';

const context = { model: 'm-client', requestId: 'req_summary', includeUsage: true };

function answer(usage: CanonicalUsage): CanonicalResponse {
  return {
    id: 'ans_1',
    model: 'upstream-model-7',
    created: 1_700_000_000,
    content: [{ type: 'text', text: 'Hello there.' }],
    finishReason: { unified: 'stop' },
    usage,
  };
}

const usages: Record<string, CanonicalUsage> = {
  plain: { inputTokens: 12, outputTokens: 5 },
  cached: { inputTokens: 120, outputTokens: 40, cacheReadTokens: 100, cacheWriteTokens: 7, reasoningTokens: 30 },
};

// The same-format fast path reads usage instead of decoding; it must read what a decode would.
describe.each(Object.values(wireFormats))('$id response.summarize', (format) => {
  it.each(Object.entries(usages))('should read the same usage and model as a full decode (%s)', (_, usage) => {
    const body = JSON.parse(JSON.stringify(format.response.fromCanonical(answer(usage), context))) as unknown;
    const decoded = format.response.toCanonical(body);
    const summary = format.response.summarize(body);
    expect(summary?.usage).toEqual(decoded.usage);
    expect(summary?.model).toBe(decoded.model);
  });

  it('should leave an answer without usage to the full decode', () => {
    const body = JSON.parse(JSON.stringify(format.response.fromCanonical(answer(usages.plain as CanonicalUsage), context))) as Record<string, unknown>;
    delete body['usage'];
    delete body['usageMetadata'];
    expect(format.response.summarize(body)).toBeUndefined();
    expect(format.response.summarize('not an answer')).toBeUndefined();
  });
});
