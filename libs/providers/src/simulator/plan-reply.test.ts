import { describe, expect, it } from 'vitest';
import { planReply } from './plan-reply.ts';
import { emptySimulationRequest } from './simulation-request.ts';
import type { SimulationRequest } from './simulation-request.ts';
import { DEFAULT_KNOBS } from './simulator-knobs.ts';
import type { SimulatorKnobs } from './simulator-knobs.ts';

function request(overrides: Partial<SimulationRequest>): SimulationRequest {
  return { ...emptySimulationRequest('m'), userText: 'Hello there', inputCharacters: 11, ...overrides };
}

function knobs(overrides: Partial<SimulatorKnobs> = {}): SimulatorKnobs {
  return { ...DEFAULT_KNOBS, ...overrides };
}

describe('planReply', () => {
  it('should echo the user text and pad with filler to the word count', () => {
    const plan = planReply(request({}), knobs({ words: 9 }));
    expect(plan.text.startsWith('Simulated reply to: Hello there. ')).toBe(true);
    expect(plan.text.split(' ')).toHaveLength(9);
    expect(plan.textPieces).toHaveLength(9);
    expect(plan.textPieces.join('')).toBe(plan.text);
    expect(plan.usage).toEqual({ input: 3, cached: 0, output: 9, reasoning: 0 });
  });

  it('should be the same for the same input and differ for another', () => {
    expect(planReply(request({}), knobs()).text).toBe(planReply(request({}), knobs()).text);
    const other = planReply(request({ userText: 'Goodbye' }), knobs()).text;
    expect(other.split(' ').slice(4)).not.toEqual(planReply(request({}), knobs()).text.split(' ').slice(4));
  });

  it('should never cut the echo, only the filler', () => {
    const plan = planReply(request({ userText: 'one two three four five six' }), knobs({ words: 2 }));
    expect(plan.text).toBe('Simulated reply to: one two three four five six.');
  });

  it('should group words into the asked number of chunks', () => {
    const plan = planReply(request({}), knobs({ words: 10, chunks: 3 }));
    expect(plan.textPieces).toHaveLength(3);
    expect(plan.textPieces.join('')).toBe(plan.text);
    expect(plan.usage?.output).toBe(10);
  });

  it('should prefer the earliest stop sequence and cut before it', () => {
    const plan = planReply(request({ userText: 'a STOP b END', stopSequences: ['END', 'STOP'] }), knobs());
    expect(plan.text).toBe('Simulated reply to: a ');
    expect([plan.finish, plan.stopSequence]).toEqual(['stop_sequence', 'STOP']);
  });

  it('should finish with length when max tokens cuts before any stop sequence', () => {
    const plan = planReply(request({ userText: 'a STOP', stopSequences: ['STOP'], maxOutputTokens: 2 }), knobs());
    expect([plan.text, plan.finish]).toEqual(['Simulated reply', 'length']);
  });

  it('should plan tool calls instead of text, cycling the tools, unless the last turn is a tool result', () => {
    const tools = [
      { name: 'a', schema: { type: 'object', properties: { q: { type: 'string' } } } },
      { name: 'b', schema: undefined },
    ];
    const plan = planReply(request({ tools }), knobs({ tool_calls: 3 }));
    expect(plan.finish).toBe('tool_calls');
    expect(plan.text).toBe('');
    expect(plan.toolCalls.map((call) => [call.name, call.argumentsJson])).toEqual([
      ['a', '{"q":"sample"}'],
      ['b', '{}'],
      ['a', '{"q":"sample"}'],
    ]);
    expect(plan.toolCalls[0]?.argumentPieces.join('')).toBe('{"q":"sample"}');

    const answer = planReply(request({ tools, toolResultText: '42 apples' }), knobs());
    expect(answer.toolCalls).toEqual([]);
    expect(answer.text.startsWith('Simulated reply to tool result: 42 apples.')).toBe(true);
  });

  it('should respect tool_choice none, forced names and disabled parallel calls', () => {
    const tools = [{ name: 'a', schema: undefined }, { name: 'b', schema: undefined }];
    expect(planReply(request({ tools, toolMode: 'none' }), knobs()).toolCalls).toEqual([]);
    const forced = planReply(request({ tools, toolMode: 'required', allowedToolNames: ['b'] }), knobs({ tool_calls: 2 }));
    expect(forced.toolCalls.map((call) => call.name)).toEqual(['b', 'b']);
    const single = planReply(request({ tools, parallelToolCalls: false }), knobs({ tool_calls: 4 }));
    expect(single.toolCalls).toHaveLength(1);
  });

  it('should reason first and count reasoning on top of the knob', () => {
    const plan = planReply(request({ reasoning: true }), knobs({ reasoning_tokens: 100, cached_tokens: 7 }));
    expect(plan.reasoningText).toContain('Hello there');
    expect(plan.reasoningPieces.join('')).toBe(plan.reasoningText);
    expect(plan.usage?.reasoning).toBe(plan.reasoningText.split(' ').length + 100);
    expect(plan.usage?.cached).toBe(7);
  });

  it('should answer JSON from the schema, or wrap the prose in plain JSON mode', () => {
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
    expect(JSON.parse(planReply(request({ json: { schema } }), knobs()).text)).toEqual({ ok: true });
    const plain = JSON.parse(planReply(request({ json: { schema: undefined } }), knobs()).text) as { reply: string };
    expect(plain.reply.startsWith('Simulated reply to: Hello there.')).toBe(true);
  });

  it('should count input as a quarter of the characters, at least one, plus media', () => {
    expect(planReply(request({ inputCharacters: 0 }), knobs()).usage?.input).toBe(1);
    expect(planReply(request({ inputCharacters: 9, mediaParts: 1 }), knobs()).usage?.input).toBe(3 + 85);
  });

  it('should omit usage with no_usage', () => {
    expect(planReply(request({}), knobs({ no_usage: true })).usage).toBeUndefined();
  });
});
