import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainChunk } from './is-plain-chunk.ts';
import { generateContentResponseSchema } from './response-schema.ts';

/** Values of each kind the schema tells apart, so that every field is sometimes of the wrong type. */
const anyValue = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant([]), fc.constant({}), fc.constant(undefined));
const often = <T,>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ arbitrary, weight: 4 }, { arbitrary: anyValue, weight: 1 });

const part = fc.oneof(
  fc.record({ text: often(fc.string()), thought: often(fc.boolean()), thoughtSignature: often(fc.string()) }, { requiredKeys: [] }),
  fc.record({ text: fc.string() }),
  fc.constant({ functionCall: { name: 'f', args: { a: 1 } } }),
  fc.constant({ inline_data: { mime_type: 'image/png', data: 'AA==' } }),
  fc.constant({ thought_signature: 'sig', text: 'a' }),
  fc.constant({ inlineData: { mimeType: 'image/png' } }),
);

const content = fc.record(
  { role: often(fc.constant('model')), parts: fc.oneof(fc.array(part, { maxLength: 3 }), part, anyValue), extra: anyValue },
  { requiredKeys: [] },
);

const candidate = fc.record(
  { index: often(fc.nat()), content: often(content), finishReason: often(fc.constantFrom('STOP', 'MAX_TOKENS')), safetyRatings: anyValue },
  { requiredKeys: [] },
);

const usage = fc.record(
  {
    promptTokenCount: often(fc.nat()),
    candidatesTokenCount: often(fc.nat()),
    thoughtsTokenCount: often(fc.nat()),
    totalTokenCount: often(fc.nat()),
    promptTokensDetails: fc.constant([{ modality: 'TEXT', tokenCount: 3 }]),
  },
  { requiredKeys: [] },
);

const chunk = fc.record(
  {
    candidates: fc.oneof(fc.array(candidate, { maxLength: 2 }), anyValue),
    usageMetadata: often(usage),
    modelVersion: often(fc.string()),
    responseId: often(fc.string()),
    promptFeedback: fc.oneof(fc.constant({ blockReason: 'SAFETY' }), fc.constant(null)),
    createTime: anyValue,
  },
  { requiredKeys: [] },
);

describe('isPlainChunk', () => {
  it('should accept only chunks the schema accepts and hands back unchanged', () => {
    let accepted = 0;
    fc.assert(
      fc.property(chunk, (value) => {
        // What the decoder gets: JSON text parsed (no undefined values survive it).
        const parsed: unknown = JSON.parse(JSON.stringify(value));
        if (!isPlainChunk(parsed)) return;
        accepted++;
        const checked = generateContentResponseSchema.safeParse(parsed);
        expect(checked.success).toBe(true);
        expect(checked.data).toEqual(parsed);
      }),
      { numRuns: 5000 },
    );
    // The property says nothing unless plain chunks are a fair share of those generated.
    expect(accepted).toBeGreaterThan(250);
  });

  it('should take a text chunk as Gemini streams it, and leave other parts and shapes to the schema', () => {
    expect(
      isPlainChunk({
        candidates: [{ content: { parts: [{ text: 'Hello' }], role: 'model' }, index: 0 }],
        usageMetadata: { promptTokenCount: 5, totalTokenCount: 5, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 5 }] },
        modelVersion: 'gemini-2.5-flash',
        responseId: 'abc',
      }),
    ).toBe(true);
    expect(isPlainChunk({ candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: {} } }] } }] })).toBe(false);
    expect(isPlainChunk({ candidates: [{ content: { parts: { text: 'one object' } } }] })).toBe(false);
    expect(isPlainChunk({ candidates: [{ content: { parts: [{ text: 'a', thought_signature: 's' }] } }] })).toBe(false);
    expect(isPlainChunk({ promptFeedback: { blockReason: 'SAFETY' } })).toBe(false);
    expect(isPlainChunk({ usageMetadata: { totalTokenCount: '5' } })).toBe(false);
  });
});
