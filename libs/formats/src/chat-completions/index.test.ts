import { describe, expect, it } from 'vitest';
import { chatCompletions } from './index.ts';

describe('chatCompletions', () => {
  it('should call upstreams at /chat/completions with a bearer key', () => {
    expect(chatCompletions.upstream.generatePath('gpt-4o', true)).toBe('/chat/completions');
    expect(chatCompletions.upstream.requestHeaders('sk-up')).toEqual({ Authorization: 'Bearer sk-up' });
  });

  it('should render the OpenAI model list', () => {
    const model = { id: 'fast-chat', created: 1715367049, ownedBy: 'switchyard', kind: 'chat' } as const;
    expect(chatCompletions.models.renderList([model], {})).toEqual({
      object: 'list',
      data: [{ id: 'fast-chat', object: 'model', created: 1715367049, owned_by: 'switchyard' }],
    });
    expect(chatCompletions.models.renderOne(model)).toEqual({ id: 'fast-chat', object: 'model', created: 1715367049, owned_by: 'switchyard' });
  });
});
