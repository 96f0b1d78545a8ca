import { describe, expect, it } from 'vitest';
import { StreamAccumulator } from './accumulate-stream.ts';

describe('StreamAccumulator', () => {
  it('should fold parts into the answer and report what was generated, finished or not', () => {
    const accumulator = new StreamAccumulator();
    accumulator.push({ type: 'start', id: 'a', model: 'm', created: 1 });
    accumulator.push({ type: 'reasoning-delta', text: 'think ' });
    accumulator.push({ type: 'reasoning-end', signature: { origin: 'messages', value: 's' } });
    accumulator.push({ type: 'text-delta', text: 'Hel' });
    accumulator.push({ type: 'text-delta', text: 'lo' });
    accumulator.push({ type: 'tool-call-start', index: 0, id: 'c1', name: 'f' });
    accumulator.push({ type: 'tool-call-delta', index: 0, argumentsDelta: '{"a":1}' });
    expect(accumulator.response).toBeUndefined();
    expect(accumulator.generatedText()).toBe('think Hello{"a":1}');
    accumulator.push({ type: 'text-delta', text: ' more' });
    expect(accumulator.generatedText()).toBe('think Hello{"a":1} more');
    accumulator.push({ type: 'finish', finishReason: { unified: 'tool-calls' }, usage: { inputTokens: 1, outputTokens: 2 } });
    expect(accumulator.response?.content).toEqual([
      { type: 'reasoning', text: 'think ', signature: { origin: 'messages', value: 's' } },
      { type: 'text', text: 'Hello' },
      { type: 'tool-call', id: 'c1', name: 'f', arguments: '{"a":1}' },
      { type: 'text', text: ' more' },
    ]);
  });
});
