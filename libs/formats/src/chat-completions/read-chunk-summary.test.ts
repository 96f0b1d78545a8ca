import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectReadAsParsed } from '../testing/test-support.ts';
import { count, freeText, openAiUsage } from './__fixtures__/arbitraries.ts';
import { parseSse, readFixture } from './__fixtures__/replay.ts';
import { isChatChunk } from './is-chat-chunk.ts';
import { readChunkSummary, summarizeChunk, type ChunkSummary } from './read-chunk-summary.ts';

const FIXTURES = ['text.chunks.txt', 'parallel-tools.chunks.txt', 'reasoning.chunks.txt', 'error.chunks.txt', 'truncated.chunks.txt'];

/** What the parse reads of a chunk, as the relay monitor takes it (no summary for what is not a chunk). */
function parsed(data: string): ChunkSummary | undefined {
  const json: unknown = JSON.parse(data);
  return isChatChunk(json) ? summarizeChunk(json) : undefined;
}

/** OpenAI's own chunks, as its API streams them (obfuscation included). */
const HEAD =
  '{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4o-2024-08-06",' +
  '"service_tier":"default","system_fingerprint":"fp_50cad350e4","choices":';
const ROLE = `${HEAD}[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"x"}`;
const FINISH = `${HEAD}[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null,"obfuscation":"nM"}`;
const USAGE =
  `${HEAD}[],"usage":{"prompt_tokens":1940,"completion_tokens":10,"total_tokens":1950,"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0},` +
  '"completion_tokens_details":{"reasoning_tokens":3,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"obfuscation":"s2Qe"}';

const text = freeText('"usage":{"prompt_tokens":1}', '"choices":[]', '"finish_reason":"stop"');

/** Chunks in the layouts the reader takes and in others it must leave to the parse. */
const chunk = fc.record(
  {
    id: fc.oneof(fc.constant('chatcmpl-1'), text),
    object: fc.constant('chat.completion.chunk'),
    created: count,
    model: fc.oneof(fc.constant('gpt-4.1'), text),
    service_tier: fc.constantFrom('default', null),
    system_fingerprint: fc.oneof(fc.constant('fp_1'), fc.constant(null), text),
    choices: fc.array(
      fc.record(
        {
          index: fc.nat({ max: 2 }),
          delta: fc.oneof(
            fc.constant({}),
            fc.record({ role: fc.constant('assistant'), content: fc.oneof(text, fc.constant(null)) }, { requiredKeys: [] }),
          ),
          logprobs: fc.constant(null),
          finish_reason: fc.constantFrom('stop', 'length', 'tool_calls', null),
        },
        { requiredKeys: ['index', 'delta'] },
      ),
      { maxLength: 2 },
    ),
    usage: openAiUsage,
    obfuscation: fc.constantFrom('nM', ''),
  },
  { requiredKeys: ['id', 'object', 'created', 'model', 'choices'] },
);

describe('readChunkSummary', () => {
  it("should read OpenAI's role, finish and usage chunks as the parse does", () => {
    for (const data of [ROLE, FINISH, USAGE]) {
      const summary = readChunkSummary(data);
      expect(summary).toBeDefined();
      expect(summary).toEqual(parsed(data));
    }
    expect(readChunkSummary(USAGE)?.usage).toEqual({ inputTokens: 1940, outputTokens: 10, cacheReadTokens: 1920, reasoningTokens: 3 });
  });

  it("should read every fixture chunk it takes as the parse does, and take the vendors' plain ones", () => {
    let read = 0;
    for (const name of FIXTURES) {
      for (const { data } of parseSse(readFixture(name))) {
        const summary = readChunkSummary(data);
        if (summary === undefined) continue;
        read++;
        expect(summary, `${name}: ${data}`).toEqual(parsed(data));
      }
    }
    expect(read).toBeGreaterThan(10);
  });

  it('should read what a parse reads, or leave the chunk to the parse', () => {
    expectReadAsParsed(chunk, readChunkSummary, parsed, { numRuns: 3000, atLeast: 200 });
  });

  it('should leave cut-off, padded and misleading chunks to the parse', () => {
    for (const data of [ROLE, FINISH, USAGE]) {
      expect(readChunkSummary(data.slice(0, -1))).toBeUndefined();
      expect(readChunkSummary(` ${data}`)).toBeUndefined();
    }
    expect(readChunkSummary(`${FINISH}}`)).toBeUndefined();
    expect(readChunkSummary(USAGE.replace('"total_tokens":1950', '"total_tokens":01950'))).toBeUndefined();
    expect(readChunkSummary(USAGE.replace('"prompt_tokens":1940', '"prompt_tokens": 1940'))).toBeUndefined();
    // A usage key the pattern does not know: the parse reads it.
    expect(readChunkSummary(USAGE.replace('"audio_tokens":0}', '"audio_tokens":0,"cache_write_tokens":5}'))).toBeUndefined();
    // A finish chunk with content or usage in it.
    expect(readChunkSummary(FINISH.replace('"delta":{}', '"delta":{"content":"x"}'))).toBeUndefined();
    expect(readChunkSummary(FINISH.replace('"usage":null', '"usage":{"prompt_tokens":1}'))).toBeUndefined();
    // A first choice beside a watched key, or beside a second choices key the parse would keep.
    expect(readChunkSummary(ROLE.replace('"usage":null', '"usage":{"prompt_tokens":1}'))).toBeUndefined();
    expect(readChunkSummary(ROLE.replace('"usage":null', '"error":{"message":"no"}'))).toBeUndefined();
    expect(readChunkSummary(ROLE.replace('"usage":null', '"choices":[]'))).toBeUndefined();
    // Another object, or chunks in another order.
    expect(readChunkSummary(ROLE.replace('chat.completion.chunk', 'chat.completion'))).toBeUndefined();
    expect(readChunkSummary(ROLE.replace('"object":"chat.completion.chunk",', '').replace('"service_tier"', '"object":"chat.completion.chunk","service_tier"'))).toBeUndefined();
  });
});
