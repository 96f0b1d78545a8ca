import { describe, expect, it } from 'vitest';
import { countTokensToCanonical, renderCountTokens } from './count-tokens.ts';

const context = { model: 'gemini-2.5-flash' };

describe('countTokensToCanonical', () => {
  it('should read bare contents', () => {
    expect(countTokensToCanonical({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }, context)).toEqual({
      model: 'gemini-2.5-flash',
      stream: false,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });
  });

  it('should read a whole generateContentRequest with system text and tools, ignoring its model', () => {
    const request = countTokensToCanonical(
      {
        generateContentRequest: {
          model: 'models/other',
          systemInstruction: { parts: [{ text: 'Be brief.' }] },
          contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
          tools: [{ functionDeclarations: [{ name: 'ping' }] }],
        },
      },
      context,
    );
    expect(request).toEqual({
      model: 'gemini-2.5-flash',
      stream: false,
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      ],
      tools: [{ name: 'ping', parameters: { type: 'object', properties: {} } }],
    });
  });

  it('should refuse both shapes at once, neither, and errors inside the nested request', () => {
    const contents = [{ parts: [{ text: 'Hi' }] }];
    expect(() => countTokensToCanonical({ contents, generateContentRequest: { contents } }, context)).toThrow(
      expect.objectContaining({ param: 'generateContentRequest' }),
    );
    expect(() => countTokensToCanonical({}, context)).toThrow(expect.objectContaining({ param: 'contents' }));
    expect(() => countTokensToCanonical({ generateContentRequest: { contents: [] } }, context)).toThrow(
      expect.objectContaining({ param: 'generateContentRequest.contents' }),
    );
  });
});

describe('renderCountTokens', () => {
  it('should answer totalTokens', () => {
    expect(renderCountTokens(31)).toEqual({ totalTokens: 31 });
  });
});
