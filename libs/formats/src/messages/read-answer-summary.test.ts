import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectReadAsParsed } from '../testing/test-support.ts';
import { readAnswerSummary } from './read-answer-summary.ts';
import { summarizeResponse } from './summarize-response.ts';

/** Anthropic's own answer, as its API writes it (key order included). */
const ANTHROPIC_ANSWER =
  '{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",' +
  '"content":[{"type":"text","text":"Hello! How can I help you today?"}],"stop_reason":"end_turn","stop_sequence":null,' +
  '"usage":{"input_tokens":12,"cache_creation_input_tokens":100,"cache_read_input_tokens":2048,' +
  '"cache_creation":{"ephemeral_5m_input_tokens":100,"ephemeral_1h_input_tokens":0},"output_tokens":34,"service_tier":"standard"}}';

const text = fc.oneof(fc.string(), fc.constantFrom('', '"usage":{"input_tokens":1}', ',"usage":{"input_tokens":9,"output_tokens":9}}', '"model":"x"', 'a\\', '😀 é'));
const count = fc.nat({ max: 1_000_000 });
const countOrNull = fc.oneof(count, fc.constant(null));

const usageCounts = {
  input_tokens: countOrNull,
  cache_creation_input_tokens: countOrNull,
  cache_read_input_tokens: countOrNull,
  cache_creation: fc.record({ ephemeral_5m_input_tokens: count, ephemeral_1h_input_tokens: count }),
  output_tokens: count,
  service_tier: fc.constantFrom('standard', 'priority', null),
};
/** Usage as the API writes it, sometimes with a key the reader does not know. */
const usage = fc.oneof(
  { arbitrary: fc.record(usageCounts, { requiredKeys: ['input_tokens', 'output_tokens'] }), weight: 3 },
  { arbitrary: fc.record({ ...usageCounts, output_tokens_details: fc.record({ thinking_tokens: count }) }, { requiredKeys: ['input_tokens', 'output_tokens', 'output_tokens_details'] }), weight: 1 },
);

/** Answers in the layout the reader takes and in others it must leave to the parse. */
const answer = fc.record(
  {
    id: fc.oneof({ arbitrary: fc.constant('msg_1'), weight: 3 }, { arbitrary: text, weight: 1 }),
    type: fc.constant('message'),
    role: fc.constant('assistant'),
    model: fc.oneof({ arbitrary: fc.constant('claude-sonnet-4-5'), weight: 3 }, { arbitrary: text, weight: 1 }),
    content: fc.array(
      fc.oneof(
        fc.record({ type: fc.constant('text'), text }),
        fc.record({ type: fc.constant('tool_use'), id: fc.constant('toolu_1'), name: fc.constant('f'), input: fc.dictionary(fc.constantFrom('model', 'usage', 'q'), text) }),
      ),
      { maxLength: 2 },
    ),
    stop_reason: fc.constantFrom('end_turn', 'max_tokens', 'tool_use', null),
    stop_sequence: fc.constant(null),
    usage: fc.oneof({ arbitrary: fc.constant(null), weight: 1 }, { arbitrary: usage, weight: 4 }),
  },
  { requiredKeys: ['id', 'type', 'role', 'model', 'content', 'usage'] },
);

describe('readAnswerSummary (messages)', () => {
  it("should read Anthropic's own answer as the parse does", () => {
    const summary = readAnswerSummary(ANTHROPIC_ANSWER);
    expect(summary).toBeDefined();
    expect(summary).toEqual(summarizeResponse(JSON.parse(ANTHROPIC_ANSWER)));
    expect(summary?.usage).toEqual({ inputTokens: 2160, outputTokens: 34, cacheReadTokens: 2048, cacheWriteTokens: 100 });
  });

  it('should read what a parse reads, or leave the answer to the parse', () => {
    expectReadAsParsed(answer, readAnswerSummary, (written) => summarizeResponse(JSON.parse(written)), { numRuns: 3000, atLeast: 100 });
  });

  it('should leave cut-off, padded and misleading answers to the parse', () => {
    expect(readAnswerSummary(ANTHROPIC_ANSWER.slice(0, -1))).toBeUndefined();
    expect(readAnswerSummary(`${ANTHROPIC_ANSWER}}`)).toBeUndefined();
    expect(readAnswerSummary(ANTHROPIC_ANSWER.replace('"output_tokens":34', '"output_tokens":034'))).toBeUndefined();
    // A usage key the pattern does not know: the parse reads it.
    expect(readAnswerSummary(ANTHROPIC_ANSWER.replace('"output_tokens":34', '"output_tokens":34,"output_tokens_details":{"thinking_tokens":5}'))).toBeUndefined();
    // usage inside another object is not the answer's.
    expect(readAnswerSummary(ANTHROPIC_ANSWER.replace(',"usage":', ',"extra":{"usage":').replace(/\}$/, '}}'))).toBeUndefined();
    // A second model key (a tool's input may hold one): the parse decides.
    expect(readAnswerSummary(ANTHROPIC_ANSWER.replace('"stop_reason"', '"model":"other","stop_reason"'))).toBeUndefined();
  });
});
