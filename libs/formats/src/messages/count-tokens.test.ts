import { describe, expect, it } from 'vitest';
import { countTokensToCanonical, renderCountTokens } from './count-tokens.ts';

describe('countTokensToCanonical', () => {
  it('should decode the messages body without max_tokens', () => {
    expect(
      countTokensToCanonical(
        {
          model: 'claude-sonnet-4-5',
          system: 'Be brief.',
          messages: [{ role: 'user', content: 'Hi' }],
          tools: [{ name: 'f', input_schema: { type: 'object' } }],
          thinking: { type: 'enabled', budget_tokens: 2048 },
        },
        {},
      ),
    ).toEqual({
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      ],
      tools: [{ name: 'f', parameters: { type: 'object' } }],
      reasoning: { budgetTokens: 2048, includeThoughts: true },
      stream: false,
    });
  });

  it('should answer 400 for a malformed body', () => {
    expect(() => countTokensToCanonical({ model: 'm' }, {})).toThrow(expect.objectContaining({ kind: 'invalid_request', param: 'messages' }));
  });
});

describe('renderCountTokens', () => {
  it('should render the vendor answer', () => {
    expect(renderCountTokens(1234)).toEqual({ input_tokens: 1234 });
  });
});
