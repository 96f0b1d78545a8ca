import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeAll } from './__fixtures__/replay.ts';
import { readTextDelta } from './read-text-delta.ts';
import { createStreamDecoder } from './stream-decoder.ts';

/** Text as models write it, quotes, backslashes, control characters and astral characters included. */
const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', 'say "hi"', 'a\\b', 'line\nbreak', '"content":"x"', '😀 é'));

const delta = fc.record(
  {
    role: fc.constant('assistant'),
    content: fc.oneof(text, fc.constant(null)),
    refusal: fc.oneof(text, fc.constant(null)),
    reasoning_content: fc.oneof(text, fc.constant(null)),
    tool_calls: fc.constant([{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }]),
  },
  { requiredKeys: [] },
);

const chunkObject = fc.record(
  {
    id: fc.constant('chatcmpl-1'),
    object: fc.constant('chat.completion.chunk'),
    created: fc.constant(10),
    model: fc.constant('m'),
    system_fingerprint: fc.oneof(fc.string(), fc.constant(null)),
    choices: fc.oneof(
      fc.tuple(
        fc.record(
          {
            index: fc.constant(0),
            delta,
            finish_reason: fc.oneof(fc.constant(null), fc.constant('stop')),
            logprobs: fc.oneof(fc.constant(null), fc.constant({ content: [{ token: 'a', logprob: -0.1 }] })),
          },
          { requiredKeys: ['delta'] },
        ),
      ),
      fc.constant([]),
    ),
    usage: fc.oneof(fc.constant(null), fc.constant({ prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 })),
  },
  { requiredKeys: ['choices'] },
);

/**
 * A chunk laid out as OpenAI writes it, keys in its order: what the anchored pattern reads.
 * Each optional key is sometimes absent and sometimes holds a value that says more than text.
 */
const openAiChunk = fc
  .record({
    serviceTier: fc.constantFrom('absent', 'default'),
    fingerprint: fc.constantFrom('absent', 'fp_1', null),
    role: fc.boolean(),
    content: text,
    refusal: fc.oneof(fc.constantFrom('absent', null), text),
    logprobs: fc.constantFrom('absent', null, { content: [] }),
    finishReason: fc.constantFrom(null, null, 'stop'),
    usage: fc.constantFrom('absent', null, { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 }),
    obfuscation: fc.oneof(fc.constant('absent'), fc.string()),
    index: fc.constantFrom(0, 0, 1),
  })
  .map((chunk) => {
    const given = <T,>(key: string, value: T) => (value === 'absent' ? {} : { [key]: value });
    return {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 10,
      model: 'gpt-4o',
      ...given('service_tier', chunk.serviceTier),
      ...given('system_fingerprint', chunk.fingerprint),
      choices: [
        {
          index: chunk.index,
          delta: { ...(chunk.role ? { role: 'assistant' } : {}), content: chunk.content, ...given('refusal', chunk.refusal) },
          ...given('logprobs', chunk.logprobs),
          finish_reason: chunk.finishReason,
        },
      ],
      ...given('usage', chunk.usage),
      ...given('obfuscation', chunk.obfuscation),
    };
  });

/** Compact as most servers write it, or spaced as some do. */
const event = fc
  .tuple(fc.oneof(chunkObject, openAiChunk), fc.boolean())
  .map(([object, spaced]) => ({ data: spaced ? JSON.stringify(object, null, 1) : JSON.stringify(object) }));

describe('readTextDelta', () => {
  it('should decode every stream exactly as parsing each chunk does', () => {
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 8 }), (events) => {
        const first = { data: JSON.stringify({ id: 'chatcmpl-1', created: 10, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] }) };
        const stream = [first, ...events, { data: '[DONE]' }];
        // An event name turns the shortcut off: what the decoder did before it existed.
        const parsed = decodeAll(createStreamDecoder(), stream.map((item) => ({ ...item, event: 'message' })));
        expect(decodeAll(createStreamDecoder(), stream)).toEqual(parsed);
      }),
      { numRuns: 2000 },
    );
  });

  it('should read a plain text delta, escapes included, without deciding anything else', () => {
    expect(readTextDelta({ data: '{"id":"c","choices":[{"index":0,"delta":{"content":"say \\"hi\\"\\n"},"finish_reason":null}],"usage":null}' })).toBe('say "hi"\n');
    expect(readTextDelta({ data: '{"choices":[{"index":0,"delta":{"role":"assistant"}}]}' })).toBe('');
  });

  it('should leave to the full parse whatever may say more than text', () => {
    for (const data of [
      '{"choices":[{"delta":{"content":"a"},"finish_reason":"stop"}]}',
      '{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":1}}',
      '{"choices":[{"delta":{"tool_calls":[{"index":0}]}}]}',
      '{"error":{"message":"overloaded"}}',
      '{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}',
      '{"choices":[{"delta":{"content":5}}]}',
      'not json',
    ]) {
      expect(readTextDelta({ data })).toBeUndefined();
    }
    expect(readTextDelta({ data: '{"choices":[{"delta":{"content":"a"}}]}', event: 'error' })).toBeUndefined();
  });
});
