import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { encodeContentPart, type MessagesContentBlock } from './convert-content-blocks.ts';

describe('encodeContentPart', () => {
  it('should only write blocks the vendor SDK types accept', () => {
    expectTypeOf<MessagesContentBlock>().toExtend<Anthropic.ContentBlockParam>();
  });

  it('should drop empty text and write refusals as text', () => {
    expect(encodeContentPart({ type: 'text', text: '' }, 'p')).toBeUndefined();
    expect(encodeContentPart({ type: 'refusal', text: 'No.' }, 'p')).toEqual({ type: 'text', text: 'No.' });
  });

  it('should write tool results with mapped ids, block content and no empty content', () => {
    expect(
      encodeContentPart(
        {
          type: 'tool-result',
          callId: 'call.1',
          content: [
            { type: 'text', text: '' },
            { type: 'image', source: { kind: 'url', url: 'https://example.test/a.png' } },
          ],
        },
        'p',
      ),
    ).toEqual({
      type: 'tool_result',
      tool_use_id: expect.stringMatching(/^call_1_[0-9a-f]{12}$/),
      content: [{ type: 'image', source: { type: 'url', url: 'https://example.test/a.png' } }],
    });
    expect(encodeContentPart({ type: 'tool-result', callId: 'c1', content: [{ type: 'text', text: ' ' }] }, 'p')).toEqual({
      type: 'tool_result',
      tool_use_id: 'c1',
    });
  });
});
