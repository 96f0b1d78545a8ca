import type { CanonicalMessage } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { mapToolCallId } from '../shared/index.ts';
import { convertMessagesFromCanonical } from './convert-messages.ts';

function encode(messages: CanonicalMessage[]) {
  const warnings: string[] = [];
  return { ...convertMessagesFromCanonical(messages, warnings), warnings };
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

const user = (text: string): CanonicalMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): CanonicalMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });
const text = (value: string) => ({ type: 'text' as const, text: value });

describe('convertMessagesFromCanonical', () => {
  it('should hoist every system and developer message into system, in order, joined by blank lines', () => {
    expect(
      encode([
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        user('Hi'),
        { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
        assistant('Hello.'),
        { role: 'system', content: [{ type: 'text', text: '  ' }] },
      ]),
    ).toEqual({
      system: 'Be brief.\n\nUse metric units.',
      messages: [
        { role: 'user', content: [text('Hi')] },
        { role: 'assistant', content: [text('Hello.')] },
      ],
      warnings: [],
    });
  });

  it('should merge consecutive same-role turns', () => {
    expect(encode([user('a'), user('b'), assistant('c'), assistant('d'), user('e')]).messages).toEqual([
      { role: 'user', content: [text('a'), text('b')] },
      { role: 'assistant', content: [text('c'), text('d')] },
      { role: 'user', content: [text('e')] },
    ]);
  });

  it('should put tool results first in the following user turn, with ids mapped on calls and results', () => {
    const messages: CanonicalMessage[] = [
      user('Weather in Oslo and Bergen?'),
      {
        role: 'assistant',
        content: [
          { type: 'text', text: '' },
          { type: 'tool-call', id: 'functions.get_weather:0', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          { type: 'tool-call', id: 'call_2', name: 'get_weather', arguments: '' },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', callId: 'functions.get_weather:0', content: '3 °C' }] },
      user('Also, hurry.'),
      { role: 'tool', content: [{ type: 'tool-result', callId: 'call_2', content: [{ type: 'text', text: 'offline' }], isError: true }] },
    ];
    const mapped = mapToolCallId('functions.get_weather:0');
    expect(mapped).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(encode(messages).messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: mapped, name: 'get_weather', input: { city: 'Oslo' } },
          { type: 'tool_use', id: 'call_2', name: 'get_weather', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: mapped, content: '3 °C' },
          { type: 'tool_result', tool_use_id: 'call_2', content: [text('offline')], is_error: true },
          text('Also, hurry.'),
        ],
      },
    ]);
  });

  it('should drop empty and blank text blocks, and the turns they leave empty', () => {
    expect(encode([user('a'), assistant(''), user('  '), user('b'), { role: 'tool', content: [{ type: 'tool-result', callId: 'c1', content: '' }] }]).messages).toEqual([
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1' }, text('a'), text('b')] },
    ]);
  });

  it('should start with a user turn, inserting one and warning when the conversation starts with the assistant', () => {
    expect(encode([{ role: 'system', content: [{ type: 'text', text: 'S' }] }, assistant('Prefilled.')])).toEqual({
      system: 'S',
      messages: [
        { role: 'user', content: [text('(continue)')] },
        { role: 'assistant', content: [text('Prefilled.')] },
      ],
      warnings: ['The conversation did not start with a user turn; a "(continue)" user turn was inserted.'],
    });
  });

  it('should replay only messages reasoning: signed thinking and redacted data', () => {
    expect(
      encode([
        user('Hi'),
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Mine.', signature: { origin: 'messages', value: 'EqQB' } },
            { type: 'reasoning', text: 'Theirs.', signature: { origin: 'responses', value: 'gAAA' } },
            { type: 'reasoning', text: 'Unsigned.' },
            { type: 'reasoning', text: '', redactedData: 'EmwK' },
            { type: 'text', text: 'Hello.' },
          ],
        },
      ]).messages[1],
    ).toEqual({
      role: 'assistant',
      content: [{ type: 'thinking', thinking: 'Mine.', signature: 'EqQB' }, { type: 'redacted_thinking', data: 'EmwK' }, text('Hello.')],
    });
  });

  it('should send images by source and files as documents, normalising image/jpg', () => {
    const content = encode([
      {
        role: 'user',
        content: [
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } },
          { type: 'image', source: { kind: 'url', url: 'https://example.test/a.png' } },
          { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBE' }, filename: 'spec.pdf' },
          { type: 'file', source: { kind: 'base64', mediaType: 'text/markdown', data: Buffer.from('# Title').toString('base64') } },
          { type: 'file', source: { kind: 'base64', mediaType: 'image/jpg', data: '/9j/' } },
          { type: 'file', source: { kind: 'url', url: 'https://example.test/a.pdf' }, title: 'A' },
        ],
      },
    ]).messages[0]?.content;
    expect(content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
      { type: 'image', source: { type: 'url', url: 'https://example.test/a.png' } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' }, title: 'spec.pdf' },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: '# Title' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/' } },
      { type: 'document', source: { type: 'url', url: 'https://example.test/a.pdf' }, title: 'A' },
    ]);
  });

  it('should answer 400 for what messages cannot carry: audio, file ids, other image and document types, invalid arguments', () => {
    const cases: Array<[CanonicalMessage, string]> = [
      [{ role: 'user', content: [text('x'), { type: 'audio', data: 'UklG', mediaType: 'audio/wav' }] }, 'messages[0].content[1]'],
      [{ role: 'user', content: [{ type: 'image', source: { kind: 'file-id', fileId: 'file-abc' } }] }, 'messages[0].content[0]'],
      [{ role: 'user', content: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/bmp', data: 'Qk0' } }] }, 'messages[0].content[0]'],
      [{ role: 'user', content: [{ type: 'file', source: { kind: 'base64', mediaType: 'application/zip', data: 'UEsD' } }] }, 'messages[0].content[0]'],
      [{ role: 'assistant', content: [{ type: 'tool-call', id: 'c1', name: 'f', arguments: '{"city":' }] }, 'messages[0].content[0]'],
    ];
    for (const [message, param] of cases) {
      expect(thrown(() => encode([message]))).toMatchObject({ kind: 'invalid_request', param });
    }
  });
});
