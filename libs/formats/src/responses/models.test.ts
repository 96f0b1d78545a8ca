import { describe, expect, it } from 'vitest';
import { generatePath, requestHeaders } from './endpoint.ts';
import { renderModel, renderModelList } from './models.ts';

const model = { id: 'fast-chat', created: 1715367049, ownedBy: 'switchyard', kind: 'chat' as const, displayName: 'Fast chat' };

describe('renderModelList', () => {
  it('should render the OpenAI list shape', () => {
    expect(renderModelList([model])).toEqual({
      object: 'list',
      data: [{ id: 'fast-chat', object: 'model', created: 1715367049, owned_by: 'switchyard' }],
    });
    expect(renderModel(model)).toEqual({ id: 'fast-chat', object: 'model', created: 1715367049, owned_by: 'switchyard' });
  });
});

describe('responses upstream endpoint', () => {
  it('should call /responses with a bearer key', () => {
    expect([generatePath(), requestHeaders('sk-up')]).toEqual(['/responses', { Authorization: 'Bearer sk-up' }]);
  });
});
