import type { StreamPart } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readTextDelta } from './read-text-delta.ts';
import { createStreamDecoder } from './stream-decoder.ts';

/** Text as models write it, quotes, backslashes, control characters and astral characters included. */
const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', 'say "hi"', 'a\\b', 'line\nbreak', '"}}', '😀 é'));

/** A delta event as the API writes it, or with what makes it more than a text delta. */
const deltaEvent = fc.oneof(
  fc.record({ index: fc.nat(3), text }).map(({ index, text }) => ({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } })),
  fc.record({ index: fc.nat(3), text }).map(({ index, text }) => ({ type: 'content_block_delta', delta: { text, type: 'text_delta' }, index })),
  fc.record({ index: fc.nat(3), text }).map(({ index, text }) => ({ type: 'content_block_delta', index, delta: { type: 'text_delta', text, citations: [] } })),
  fc.record({ index: fc.nat(3), text }).map(({ index, text }) => ({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: text } })),
  fc.record({ index: fc.nat(3), text }).map(({ index, text }) => ({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: text } })),
);

const blockStart = fc
  .record({ index: fc.nat(3), type: fc.constantFrom('text', 'thinking', 'tool_use') })
  .map(({ index, type }) => ({ type: 'content_block_start', index, content_block: { type, text: '', thinking: '', id: 'toolu_1', name: 'f' } }));

/** Compact as the API writes it, or spaced as a proxy might. */
const streamEvent = fc.tuple(fc.oneof(deltaEvent, deltaEvent, blockStart), fc.boolean()).map(([object, spaced]) => ({
  event: object.type,
  data: spaced ? JSON.stringify(object, null, 1) : JSON.stringify(object),
}));

function decodeAll(events: readonly SseEvent[]): unknown[] {
  const decoder = createStreamDecoder();
  const parts: StreamPart[] = [...events.flatMap((event) => decoder.push(event)), ...decoder.end()];
  // `created` is the decode time.
  return parts.map((part) => (part.type === 'start' ? { ...part, created: 0 } : part));
}

describe('readTextDelta', () => {
  it('should decode every stream exactly as parsing each event does', () => {
    fc.assert(
      fc.property(fc.array(streamEvent, { minLength: 1, maxLength: 12 }), (events) => {
        const stream: SseEvent[] = [
          { event: 'message_start', data: '{"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":3,"output_tokens":1}}}' },
          { event: 'content_block_start', data: '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}' },
          ...events,
          { event: 'message_delta', data: '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}' },
          { event: 'message_stop', data: '{"type":"message_stop"}' },
        ];
        // Another event name turns the shortcut off: what the decoder did before it existed.
        const parsed = decodeAll(stream.map((item) => ({ ...item, event: 'message' })));
        expect(decodeAll(stream)).toEqual(parsed);
        expect(decodeAll(stream.map(({ data }) => ({ data })))).toEqual(parsed);
      }),
      { numRuns: 2000 },
    );
  });

  it('should read a text delta as the API writes it, escapes included', () => {
    expect(readTextDelta('{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Cold"}}')).toEqual({ index: 0, text: 'Cold' });
    expect(readTextDelta('{"type":"content_block_delta","index":12,"delta":{"type":"text_delta","text":"say \\"hi\\"\\n\\u00e9"}}')).toEqual({
      index: 12,
      text: 'say "hi"\né',
    });
  });

  it('should leave to the full parse whatever is written differently or is no JSON', () => {
    for (const data of [
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","citations":[]}}',
      '{"type":"content_block_delta","delta":{"type":"text_delta","text":"a"},"index":0}',
      '{"type": "content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"a"}}',
      '{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"a"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\nb"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\\x"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}}',
    ]) {
      expect(readTextDelta(data)).toBeUndefined();
    }
  });
});
