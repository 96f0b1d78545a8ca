import type { StreamPart } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readTextDelta } from './read-text-delta.ts';
import { createStreamDecoder } from './stream-decoder.ts';

/** Text as models write it, quotes, backslashes, control characters and astral characters included. */
const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', 'say "hi"', 'a\\b', 'line\nbreak', '"delta":"x"', '😀 é'));

/** A text delta as the API writes it, with what makes it more than one, or another delta event. */
const deltaEvent = fc
  .record({
    type: fc.constantFrom('response.output_text.delta', 'response.output_text.delta', 'response.refusal.delta', 'response.reasoning_summary_text.delta'),
    delta: fc.oneof(text, fc.constant(5), fc.constant(null)),
    extra: fc.constantFrom({}, { obfuscation: 'a1b2' }, { nested: { delta: 'x' } }, { note: 'delta' }),
    typeFirst: fc.boolean(),
    extraFirst: fc.boolean(),
  })
  .map(({ type, delta, extra, typeFirst, extraFirst }) => {
    const fields = extraFirst
      ? { ...extra, sequence_number: 4, item_id: 'msg_1', output_index: 0, content_index: 0, delta, logprobs: [] }
      : { sequence_number: 4, item_id: 'msg_1', output_index: 0, content_index: 0, delta, logprobs: [], ...extra };
    return typeFirst ? { type, ...fields } : { ...fields, type };
  });

const partAdded = fc.constant({ type: 'response.content_part.added', item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '' } });
const textDone = fc.record({ text }).map(({ text }) => ({ type: 'response.output_text.done', item_id: 'msg_1', output_index: 0, content_index: 0, text }));

/** Compact as the API writes it, or spaced as a proxy might. */
const streamEvent = fc.tuple(fc.oneof(deltaEvent, deltaEvent, deltaEvent, partAdded, textDone), fc.boolean()).map(([object, spaced]) => ({
  event: object.type,
  data: spaced ? JSON.stringify(object, null, 1) : JSON.stringify(object),
}));

function decodeAll(events: readonly SseEvent[]): StreamPart[] {
  const decoder = createStreamDecoder();
  return [...events.flatMap((event) => decoder.push(event)), ...decoder.end()];
}

describe('readTextDelta', () => {
  it('should decode every stream exactly as parsing each event does', () => {
    fc.assert(
      fc.property(fc.array(streamEvent, { minLength: 1, maxLength: 12 }), (events) => {
        const stream: SseEvent[] = [
          { event: 'response.created', data: '{"type":"response.created","response":{"id":"resp_1","model":"m","created_at":10,"status":"in_progress"}}' },
          ...events,
          {
            event: 'response.completed',
            data: '{"type":"response.completed","response":{"id":"resp_1","model":"m","created_at":10,"status":"completed","usage":{"input_tokens":3,"output_tokens":7,"total_tokens":10}}}',
          },
        ];
        // Another event name turns the shortcut off: what the decoder did before it existed.
        const parsed = decodeAll(stream.map((item) => ({ ...item, event: 'message' })));
        expect(decodeAll(stream)).toEqual(parsed);
      }),
      { numRuns: 2000 },
    );
  });

  it('should read a text delta as the API writes it, escapes included', () => {
    expect(
      readTextDelta('{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","logprobs":[]}'),
    ).toBe('Hi');
    expect(readTextDelta('{"type":"response.output_text.delta","delta":"say \\"hi\\"\\n\\u00e9","obfuscation":"x"}')).toBe('say "hi"\né');
  });

  it('should leave to the full parse whatever is written differently or is no JSON', () => {
    for (const data of [
      '{"sequence_number":4,"type":"response.output_text.delta","delta":"a"}',
      '{"type":"response.output_text.delta","delta": "a"}',
      '{"type":"response.output_text.delta","delta":"a","nested":{"delta":"b"}}',
      '{"type":"response.output_text.delta","delta":"a","note":"delta"}',
      '{"type":"response.output_text.delta.x","delta":"a"}',
      '{"type":"response.refusal.delta","delta":"a"}',
      '{"type":"response.output_text.delta","delta":"a\nb"}',
      '{"type":"response.output_text.delta","delta":"\\x"}',
      '{"type":"response.output_text.delta","delta":"a"',
    ]) {
      expect(readTextDelta(data)).toBeUndefined();
    }
  });
});
