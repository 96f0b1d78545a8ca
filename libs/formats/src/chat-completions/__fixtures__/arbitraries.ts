import fc from 'fast-check';

/** A token count or timestamp. */
export const count = fc.nat({ max: 1_000_000 });

/** Free text for string fields: anything, or text that spells the keys and escapes the text readers look at. */
export function freeText(...tricky: string[]): fc.Arbitrary<string> {
  return fc.oneof(fc.string(), fc.constantFrom('', 'a\\', '😀 é', ...tricky));
}

/** A usage object as OpenAI writes it (every detail it may send, in its order), or null. */
export const openAiUsage = fc.oneof(
  fc.constant(null),
  fc.record(
    {
      prompt_tokens: count,
      completion_tokens: count,
      total_tokens: count,
      prompt_tokens_details: fc.record({ cached_tokens: count, audio_tokens: count }, { requiredKeys: ['cached_tokens'] }),
      completion_tokens_details: fc.record(
        { reasoning_tokens: count, audio_tokens: count, accepted_prediction_tokens: count, rejected_prediction_tokens: count },
        { requiredKeys: ['reasoning_tokens'] },
      ),
    },
    { requiredKeys: ['prompt_tokens', 'completion_tokens', 'total_tokens'] },
  ),
);
