import type { CanonicalRequest } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import type { MessagesTurn } from './convert-messages.ts';
import { encodeThinking } from './convert-thinking.ts';

function request(extra: Partial<CanonicalRequest>): CanonicalRequest {
  return { model: 'm', messages: [], stream: false, ...extra };
}

function run(extra: Partial<CanonicalRequest>, maxTokens: number, modelLimit?: number, turns: MessagesTurn[] = []) {
  const warnings: string[] = [];
  return { ...encodeThinking(request(extra), turns, maxTokens, modelLimit, warnings), warnings };
}

describe('encodeThinking', () => {
  it('should send no thinking without reasoning, for effort none, or for a zero budget', () => {
    expect(run({}, 4096)).toEqual({ maxTokens: 4096, warnings: [] });
    expect(run({ reasoning: { effort: 'none' } }, 4096)).toEqual({ maxTokens: 4096, warnings: [] });
    expect(run({ reasoning: { budgetTokens: 0 } }, 4096)).toEqual({ maxTokens: 4096, warnings: [] });
  });

  it('should use the budget the client gave, raised to the 1024 minimum', () => {
    expect(run({ reasoning: { budgetTokens: 3000 } }, 8000).thinking).toEqual({ type: 'enabled', budget_tokens: 3000 });
    expect(run({ reasoning: { budgetTokens: 200 } }, 8000).thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
  });

  it('should map efforts through the shared table and dynamic budgets to medium', () => {
    expect(run({ reasoning: { effort: 'low' } }, 32000).thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(run({ reasoning: { effort: 'high' } }, 32000).thinking).toEqual({ type: 'enabled', budget_tokens: 16384 });
    expect(run({ reasoning: { budgetTokens: -1 } }, 32000).thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
  });

  it('should raise max_tokens above the budget, with a warning', () => {
    expect(run({ reasoning: { effort: 'high' } }, 4096)).toEqual({
      thinking: { type: 'enabled', budget_tokens: 16384 },
      maxTokens: 17408,
      warnings: ['max_tokens was raised from 4096 to 17408 to exceed the thinking budget of 16384 tokens.'],
    });
  });

  it('should shrink the budget rather than pass the model output limit', () => {
    expect(run({ reasoning: { effort: 'high' } }, 8192, 8192)).toEqual({
      thinking: { type: 'enabled', budget_tokens: 7168 },
      maxTokens: 8192,
      warnings: ["The thinking budget was reduced to 7168 tokens and max_tokens set to the model's output limit of 8192."],
    });
    expect(run({ reasoning: { effort: 'high' } }, 1500, 1500).thinking).toBeUndefined();
  });

  it('should drop thinking with a warning when a tool choice is forced', () => {
    for (const toolChoice of [{ type: 'required' }, { type: 'tool', name: 'f' }] as const) {
      expect(run({ reasoning: { effort: 'high' }, toolChoice }, 4096)).toEqual({
        maxTokens: 4096,
        warnings: ['Reasoning was dropped: messages does not allow thinking while a tool choice is forced.'],
      });
    }
  });

  it('should drop thinking when the tool loop in progress has no thinking block to replay', () => {
    const toolUse = { type: 'tool_use', id: 'c1', name: 'f', input: {} } as const;
    const result: MessagesTurn = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1' }] };
    const withoutThinking: MessagesTurn[] = [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }, { role: 'assistant', content: [toolUse] }, result];
    expect(run({ reasoning: { effort: 'low' } }, 8000, undefined, withoutThinking)).toEqual({
      maxTokens: 8000,
      warnings: ['Reasoning was dropped: the last assistant tool call has no messages thinking block to replay.'],
    });
    const withThinking: MessagesTurn[] = [
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'Hmm.', signature: 'sig' }, toolUse] },
      result,
    ];
    expect(run({ reasoning: { effort: 'low' } }, 8000, undefined, withThinking).thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
  });
});
