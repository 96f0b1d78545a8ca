import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isChatChunk } from './is-chat-chunk.ts';
import { chatChunkSchema } from './response-schema.ts';

const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof(arbitrary, fc.constant(null), fc.constant(undefined), fc.integer(), fc.string());
const chunkLike = fc.record(
  {
    id: maybe(fc.string()),
    created: maybe(fc.integer()),
    choices: maybe(
      fc.array(
        fc.record(
          {
            delta: maybe(
              fc.record(
                {
                  content: maybe(fc.string()),
                  tool_calls: maybe(fc.array(fc.record({ index: maybe(fc.integer()), function: maybe(fc.record({ arguments: maybe(fc.string()) })) }))),
                },
                { requiredKeys: [] },
              ),
            ),
            finish_reason: maybe(fc.string()),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 2 },
      ),
    ),
    usage: maybe(fc.record({ prompt_tokens: maybe(fc.integer()) }, { requiredKeys: [] })),
  },
  { requiredKeys: [] },
);

describe('isChatChunk', () => {
  it('should accept exactly what the zod chunk schema accepts', () => {
    fc.assert(
      fc.property(chunkLike, (value) => {
        expect(isChatChunk(value)).toBe(chatChunkSchema.safeParse(value).success);
      }),
      { numRuns: 500 },
    );
  });

  it('should refuse non-objects', () => {
    expect(isChatChunk('x')).toBe(false);
    expect(isChatChunk([])).toBe(false);
    expect(isChatChunk(null)).toBe(false);
  });
});
