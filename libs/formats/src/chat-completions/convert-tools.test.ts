import { describe, expect, it } from 'vitest';
import { convertToCanonicalTools, convertToChatToolChoice, convertToChatTools } from './convert-tools.ts';
import { chatRequestSchema } from './schema.ts';

function decodeTools(fields: Record<string, unknown>) {
  return convertToCanonicalTools(chatRequestSchema.parse({ model: 'm', messages: [{ role: 'user', content: 'x' }], ...fields }));
}

describe('convertToCanonicalTools', () => {
  it('should default missing parameters to an empty object schema', () => {
    expect(decodeTools({ tools: [{ type: 'function', function: { name: 'ping' } }] })).toEqual({
      tools: [{ name: 'ping', parameters: { type: 'object', properties: {} } }],
      extensionFields: {},
    });
  });

  it('should keep non-function tools and a choice naming one as extension fields', () => {
    const custom = { type: 'custom', custom: { name: 'sql' } };
    expect(decodeTools({ tools: [custom], tool_choice: { type: 'custom', custom: { name: 'sql' } } })).toEqual({
      extensionFields: { tools: [custom], tool_choice: { type: 'custom', custom: { name: 'sql' } } },
    });
  });

  it('should decode allowed_tools into allowedTools and a mode', () => {
    expect(
      decodeTools({
        tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'a' } }] } },
      }),
    ).toEqual({ toolChoice: { type: 'auto' }, allowedTools: ['a'], extensionFields: {} });
  });

  it('should keep allowed_tools that name a custom tool for same-format upstreams only', () => {
    const choice = { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [{ type: 'custom', custom: { name: 'sql' } }] } };
    expect(decodeTools({ tool_choice: choice })).toEqual({ extensionFields: { tool_choice: choice } });
  });

  it('should read the deprecated functions and function_call', () => {
    expect(decodeTools({ functions: [{ name: 'f', description: 'd', parameters: { type: 'object' } }], function_call: 'none' })).toEqual({
      tools: [{ name: 'f', description: 'd', parameters: { type: 'object' } }],
      toolChoice: { type: 'none' },
      extensionFields: {},
    });
  });

  it('should reject a malformed function tool instead of passing it on as a vendor tool', () => {
    expect(() => decodeTools({ tools: [{ type: 'function', name: 'flat' }] })).toThrow();
  });
});

describe('convertToChatTools', () => {
  it('should nest each tool under function', () => {
    expect(convertToChatTools([{ name: 'f', parameters: { type: 'object' }, strict: true }])).toEqual([
      { type: 'function', function: { name: 'f', parameters: { type: 'object' }, strict: true } },
    ]);
  });
});

describe('convertToChatToolChoice', () => {
  it.each([
    [{ type: 'auto' } as const, undefined, 'auto'],
    [{ type: 'none' } as const, ['a'], 'none'],
    [{ type: 'tool', name: 'a' } as const, ['a', 'b'], { type: 'function', function: { name: 'a' } }],
    [
      { type: 'required' } as const,
      ['a'],
      { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'a' } }] } },
    ],
    [undefined, ['a'], { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'a' } }] } }],
    [undefined, undefined, undefined],
  ])('should encode %j restricted to %j', (choice, allowed, expected) => {
    expect(convertToChatToolChoice(choice, allowed)).toEqual(expected);
  });
});
