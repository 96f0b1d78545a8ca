import { GatewayError } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { convertToCanonicalMessages } from './convert-to-canonical-messages.ts';
import { chatRequestSchema } from './schema.ts';

function convert(messages: unknown[]) {
  return convertToCanonicalMessages(chatRequestSchema.parse({ model: 'm', messages }).messages);
}

describe('convertToCanonicalMessages', () => {
  describe('system and developer', () => {
    it('should keep role, position and name', () => {
      expect(
        convert([
          { role: 'user', content: 'Hi' },
          { role: 'developer', content: [{ type: 'text', text: 'Be terse.' }], name: 'ops' },
        ]),
      ).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'developer', content: [{ type: 'text', text: 'Be terse.' }], name: 'ops' },
      ]);
    });
  });

  describe('user', () => {
    it('should decode images, data URLs, audio and files', () => {
      expect(
        convert([
          {
            role: 'user',
            content: [
              { type: 'image_url', image_url: { url: 'https://example.test/a.png', detail: 'high' } },
              { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
              { type: 'input_audio', input_audio: { data: 'SUQz', format: 'mp3' } },
              { type: 'file', file: { filename: 'spec.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
              { type: 'file', file: { file_data: 'JVBERi0=' } },
              { type: 'file', file: { file_id: 'file-abc' } },
            ],
          },
        ]),
      ).toEqual([
        {
          role: 'user',
          content: [
            { type: 'image', source: { kind: 'url', url: 'https://example.test/a.png' }, detail: 'high' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/4AAQ' } },
            { type: 'audio', data: 'SUQz', mediaType: 'audio/mp3' },
            { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' }, filename: 'spec.pdf' },
            { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' } },
            { type: 'file', source: { kind: 'file-id', fileId: 'file-abc' } },
          ],
        },
      ]);
    });

    it('should answer 400 naming the file part that has neither data nor id', () => {
      const error = (() => {
        try {
          convert([{ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'file', file: { filename: 'a.pdf' } }] }]);
        } catch (caught) {
          return caught;
        }
      })();
      expect(GatewayError.isInstance(error) && [error.kind, error.param]).toEqual(['invalid_request', 'messages[0].content[1].file']);
    });
  });

  describe('assistant', () => {
    it('should decode reasoning_content, text, refusal and tool calls in order', () => {
      expect(
        convert([
          {
            role: 'assistant',
            reasoning_content: 'Look it up.',
            content: [
              { type: 'text', text: 'Checking.' },
              { type: 'refusal', refusal: 'Not that part.' },
            ],
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
          },
        ]),
      ).toEqual([
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Look it up.' },
            { type: 'text', text: 'Checking.' },
            { type: 'refusal', text: 'Not that part.' },
            { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          ],
        },
      ]);
    });

    it('should drop empty text beside tool calls', () => {
      expect(
        convert([{ role: 'assistant', content: '', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '' } }] }]),
      ).toEqual([{ role: 'assistant', content: [{ type: 'tool-call', id: 'c', name: 'f', arguments: '' }] }]);
    });

    it('should keep a custom tool call with its raw input as arguments', () => {
      expect(convert([{ role: 'assistant', tool_calls: [{ id: 'c', type: 'custom', custom: { name: 'sql', input: 'SELECT 1' } }] }])).toEqual([
        { role: 'assistant', content: [{ type: 'tool-call', id: 'c', name: 'sql', arguments: 'SELECT 1' }] },
      ]);
    });
  });

  describe('tool and function', () => {
    it('should turn tool messages into tool results named after their call', () => {
      expect(
        convert([
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: '3 °C' }] },
          { role: 'tool', tool_call_id: 'unknown', content: 'orphan' },
        ]).slice(1),
      ).toEqual([
        { role: 'tool', content: [{ type: 'tool-result', callId: 'call_1', name: 'get_weather', content: [{ type: 'text', text: '3 °C' }] }] },
        { role: 'tool', content: [{ type: 'tool-result', callId: 'unknown', content: 'orphan' }] },
      ]);
    });

    it('should pair a legacy function message with the preceding function_call', () => {
      expect(
        convert([
          { role: 'user', content: 'Time?' },
          { role: 'assistant', content: null, function_call: { name: 'get_time', arguments: '{}' } },
          { role: 'function', name: 'get_time', content: '12:00' },
        ]).slice(1),
      ).toEqual([
        { role: 'assistant', content: [{ type: 'tool-call', id: 'call_function_1', name: 'get_time', arguments: '{}' }] },
        { role: 'tool', content: [{ type: 'tool-result', callId: 'call_function_1', name: 'get_time', content: '12:00' }] },
      ]);
    });
  });
});
