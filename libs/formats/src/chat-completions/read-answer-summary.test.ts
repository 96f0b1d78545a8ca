import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectReadAsParsed } from '../testing/test-support.ts';
import { count, freeText, openAiUsage } from './__fixtures__/arbitraries.ts';
import { readAnswerSummary } from './read-answer-summary.ts';
import { summarizeResponse } from './summarize-response.ts';

/** OpenAI's own answer, as its API writes it (key order included). */
const OPENAI_ANSWER =
  '{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion","created":1741569952,"model":"gpt-4.1-2025-04-14",' +
  '"choices":[{"index":0,"message":{"role":"assistant","content":"Hello! How can I assist you today?","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],' +
  '"usage":{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},' +
  '"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},' +
  '"service_tier":"default","system_fingerprint":"fp_44709d6fcb"}';

const text = freeText('"usage":{"prompt_tokens":1}', ',"usage":{"prompt_tokens":9,"completion_tokens":9,"total_tokens":18}}', '"model":"x"');

/** Answers in the layout the reader takes and in others it must leave to the parse. */
const answer = fc.record(
  {
    id: fc.string(),
    object: fc.constant('chat.completion'),
    created: count,
    model: fc.oneof(fc.constant('gpt-4.1'), text),
    choices: fc.array(
      fc.record({
        index: fc.nat({ max: 3 }),
        message: fc.record({ role: fc.constant('assistant'), content: fc.oneof(text, fc.constant(null)) }),
        finish_reason: fc.constantFrom('stop', 'length', null),
      }),
      { maxLength: 2 },
    ),
    usage: openAiUsage,
    service_tier: fc.constantFrom('default', 'flex'),
    system_fingerprint: fc.oneof(fc.constant('fp_1'), fc.constant(null), text),
  },
  { requiredKeys: ['id', 'object', 'created', 'model', 'choices'] },
);

describe('readAnswerSummary', () => {
  it("should read OpenAI's own answer as the parse does", () => {
    const summary = readAnswerSummary(OPENAI_ANSWER);
    expect(summary).toBeDefined();
    expect(summary).toEqual(summarizeResponse(JSON.parse(OPENAI_ANSWER)));
  });

  it('should read what a parse reads, or leave the answer to the parse', () => {
    expectReadAsParsed(answer, readAnswerSummary, (written) => summarizeResponse(JSON.parse(written)), { numRuns: 2000, atLeast: 100 });
  });

  it('should leave cut-off, padded and misleading answers to the parse', () => {
    expect(readAnswerSummary(OPENAI_ANSWER.slice(0, -1))).toBeUndefined();
    expect(readAnswerSummary(`${OPENAI_ANSWER}}`)).toBeUndefined();
    expect(readAnswerSummary(OPENAI_ANSWER.replace('"total_tokens":29', '"total_tokens":029'))).toBeUndefined();
    // usage inside another object is not the answer's.
    const nested = OPENAI_ANSWER.replace(',"service_tier":"default","system_fingerprint":"fp_44709d6fcb"}', '}');
    expect(readAnswerSummary(nested.replace(',"usage":', ',"extra":{"usage":').replace(/\}$/, '}}'))).toBeUndefined();
    // A second model key: the parse keeps the last one.
    expect(readAnswerSummary(OPENAI_ANSWER.replace('"service_tier"', '"model":"other","service_tier"'))).toBeUndefined();
  });
});
