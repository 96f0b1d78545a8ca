import { GatewayError } from '@switchyard/canonical';
import type { CanonicalMessage } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { convertToChatMessages } from './convert-to-chat-messages.ts';

function convert(messages: CanonicalMessage[]) {
  const warnings: string[] = [];
  return { messages: convertToChatMessages(messages, warnings), warnings };
}

function rejection(messages: CanonicalMessage[]): unknown {
  try {
    convert(messages);
  } catch (error) {
    return GatewayError.isInstance(error) ? [error.kind, error.param] : error;
  }
  return undefined;
}

describe('convertToChatMessages', () => {
  describe('system and developer', () => {
    it('should send one text part as a string and several as parts', () => {
      expect(
        convert([
          { role: 'system', content: [{ type: 'text', text: 'A' }] },
          { role: 'developer', content: [{ type: 'text', text: 'B' }, { type: 'text', text: 'C' }] },
        ]).messages,
      ).toEqual([
        { role: 'system', content: 'A' },
        {
          role: 'developer',
          content: [
            { type: 'text', text: 'B' },
            { type: 'text', text: 'C' },
          ],
        },
      ]);
    });

    it('should refuse media it cannot place', () => {
      expect(
        rejection([{ role: 'system', content: [{ type: 'image', source: { kind: 'url', url: 'https://example.test/a.png' } }] }]),
      ).toEqual(['invalid_request', 'messages']);
    });
  });

  describe('user', () => {
    it('should encode images, audio and files', () => {
      expect(
        convert([
          {
            role: 'user',
            content: [
              { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' }, detail: 'auto' },
              { type: 'audio', data: 'SUQz', mediaType: 'audio/mpeg' },
              { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBE' }, title: 'Spec' },
              { type: 'file', source: { kind: 'file-id', fileId: 'file-1' } },
            ],
          },
        ]).messages,
      ).toEqual([
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBO', detail: 'auto' } },
            { type: 'input_audio', input_audio: { data: 'SUQz', format: 'mp3' } },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBE', filename: 'Spec' } },
            { type: 'file', file: { file_id: 'file-1' } },
          ],
        },
      ]);
    });

    it('should drop the original image detail with a warning', () => {
      const { messages, warnings } = convert([
        { role: 'user', content: [{ type: 'image', source: { kind: 'url', url: 'https://example.test/a.png' }, detail: 'original' }] },
      ]);
      expect(messages).toEqual([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.test/a.png' } }] }]);
      expect(warnings).toHaveLength(1);
    });

    it.each<[string, CanonicalMessage]>([
      ['image file ids', { role: 'user', content: [{ type: 'image', source: { kind: 'file-id', fileId: 'f' } }] }],
      ['file URLs', { role: 'user', content: [{ type: 'file', source: { kind: 'url', url: 'https://example.test/a.pdf' } }] }],
      ['ogg audio', { role: 'user', content: [{ type: 'audio', data: 'T2dn', mediaType: 'audio/ogg' }] }],
      ['tool calls in user turns', { role: 'user', content: [{ type: 'tool-call', id: 'c', name: 'f', arguments: '{}' }] }],
    ])('should refuse %s with a 400', (_name, message) => {
      expect(rejection([message])).toEqual(['invalid_request', 'messages']);
    });
  });

  describe('assistant', () => {
    it('should send tool calls with null content, refusals in their field, and drop reasoning silently', () => {
      const { messages, warnings } = convert([
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'hmm', signature: { origin: 'messages', value: 'sig' } },
            {
              type: 'tool-call',
              id: 'toolu_01',
              name: 'get_weather',
              arguments: '{"city":"Oslo"}',
              signature: { origin: 'generate-content', value: 's' },
            },
          ],
        },
        { role: 'assistant', content: [{ type: 'refusal', text: 'No.' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'A' }, { type: 'text', text: 'B' }] },
      ]);
      expect(messages).toEqual([
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'toolu_01', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
        },
        { role: 'assistant', content: null, refusal: 'No.' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'A' },
            { type: 'text', text: 'B' },
          ],
        },
      ]);
      expect(warnings).toEqual([]);
    });

    it('should drop generated media from history with one warning', () => {
      const { messages, warnings } = convert([
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Here.' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'a' } },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'b' } },
          ],
        },
      ]);
      expect(messages).toEqual([{ role: 'assistant', content: 'Here.' }]);
      expect(warnings).toHaveLength(1);
    });
  });

  describe('tool results', () => {
    it('should emit one tool message per result, then the results’ media as one user message', () => {
      const { messages, warnings } = convert([
        {
          role: 'tool',
          content: [
            { type: 'tool-result', callId: 'call_1', content: '3 °C' },
            {
              type: 'tool-result',
              callId: 'call_2',
              content: [
                { type: 'text', text: 'Screenshot:' },
                { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } },
              ],
            },
          ],
        },
        {
          role: 'tool',
          content: [{ type: 'tool-result', callId: 'call_3', content: [{ type: 'image', source: { kind: 'url', url: 'https://x.test/b.png' } }] }],
        },
        { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
      ]);
      expect(messages).toEqual([
        { role: 'tool', tool_call_id: 'call_1', content: '3 °C' },
        { role: 'tool', tool_call_id: 'call_2', content: 'Screenshot:' },
        { role: 'tool', tool_call_id: 'call_3', content: '' },
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBO' } },
            { type: 'image_url', image_url: { url: 'https://x.test/b.png' } },
          ],
        },
        { role: 'user', content: 'Thanks' },
      ]);
      expect(warnings).toHaveLength(1);
    });

    it('should warn that error flags are lost', () => {
      const { messages, warnings } = convert([{ role: 'tool', content: [{ type: 'tool-result', callId: 'c', content: 'boom', isError: true }] }]);
      expect(messages).toEqual([{ role: 'tool', tool_call_id: 'c', content: 'boom' }]);
      expect(warnings).toHaveLength(1);
    });
  });
});
