import type { CanonicalMessage, CanonicalResponse } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { createMemorySignatureStore } from '../responses-store/index.ts';
import { collectCallSignatures, restoreCallSignatures } from './signature-continuity.ts';

const answer: CanonicalResponse = {
  id: 'a1',
  model: 'm',
  created: 0,
  content: [
    { type: 'reasoning', text: 'plan', signature: { origin: 'messages', value: 'sig-think' } },
    { type: 'text', text: 'Checking.' },
    { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{}' },
    { type: 'tool-call', id: 'call_2', name: 'get_time', arguments: '{}', signature: { origin: 'generate-content', value: 'sig-call' } },
    { type: 'tool-call', id: 'call_3', name: 'plain', arguments: '{}' },
  ],
  finishReason: { unified: 'tool-calls' },
  usage: { inputTokens: 1, outputTokens: 1 },
};

describe('signature continuity', () => {
  it('should keep the signed reasoning with the first call and each call signature', () => {
    const found = collectCallSignatures(answer);
    expect([...found.keys()]).toEqual(['call_1', 'call_2']);
    expect(found.get('call_1')?.reasoning).toHaveLength(1);
    expect(found.get('call_2')).toEqual({ reasoning: [], signature: { origin: 'generate-content', value: 'sig-call' } });
  });

  it('should put stored signatures back into a turn that lost them, reasoning first', async () => {
    const store = createMemorySignatureStore();
    await store.save('acme', collectCallSignatures(answer));
    const history: CanonicalMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{}' },
          { type: 'tool-call', id: 'call_2', name: 'get_time', arguments: '{}' },
        ],
      },
    ];
    const restored = await restoreCallSignatures(store, 'acme', history);
    expect(restored[1]?.content.map((part) => part.type)).toEqual(['reasoning', 'text', 'tool-call', 'tool-call']);
    expect(restored[1]?.content[3]).toMatchObject({ id: 'call_2', signature: { origin: 'generate-content', value: 'sig-call' } });
    // Another tenant's history with the same ids gets nothing.
    expect(await restoreCallSignatures(store, 'globex', history)).toBe(history);
  });

  it('should leave a turn that still carries its signatures alone', async () => {
    const store = createMemorySignatureStore();
    await store.save('acme', collectCallSignatures(answer));
    const history: CanonicalMessage[] = [{ role: 'assistant', content: answer.content }];
    expect(await restoreCallSignatures(store, 'acme', history)).toBe(history);
  });
});
