import type { ModelInfo } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { renderModel, renderModelList } from './models.ts';

function model(id: string, created: number, extra: Partial<ModelInfo> = {}): ModelInfo {
  return { id, created, ownedBy: 'switchyard', kind: 'chat', ...extra };
}

// Newest first: c, b, a.
const MODELS = [model('a', 100), model('c', 300), model('embed', 400, { kind: 'embedding' }), model('b', 200)];

function ids(list: unknown): string[] {
  return (list as { data: Array<{ id: string }> }).data.map((item) => item.id);
}

describe('renderModel', () => {
  it('should render the vendor model object with an RFC 3339 creation time', () => {
    expect(
      renderModel(model('claude-sonnet-4-5', 1759104000, { displayName: 'Claude Sonnet 4.5', maxInputTokens: 200000, maxOutputTokens: 64000 })),
    ).toEqual({
      type: 'model',
      id: 'claude-sonnet-4-5',
      display_name: 'Claude Sonnet 4.5',
      created_at: '2025-09-29T00:00:00Z',
      max_input_tokens: 200000,
      max_tokens: 64000,
    });
    expect(renderModel(model('x', 0))).toMatchObject({ display_name: 'x', max_input_tokens: null, max_tokens: null });
  });
});

describe('renderModelList', () => {
  it('should list chat models newest first with first and last ids', () => {
    expect(renderModelList(MODELS, {})).toMatchObject({ has_more: false, first_id: 'c', last_id: 'a' });
    expect(ids(renderModelList(MODELS, {}))).toEqual(['c', 'b', 'a']);
  });

  it('should page forward with limit and after_id', () => {
    expect(renderModelList(MODELS, { limit: '2' })).toMatchObject({ has_more: true, first_id: 'c', last_id: 'b' });
    expect(renderModelList(MODELS, { limit: '2', after_id: 'b' })).toMatchObject({ has_more: false, first_id: 'a', last_id: 'a' });
  });

  it('should page backward with before_id', () => {
    expect(ids(renderModelList(MODELS, { limit: '1', before_id: 'a' }))).toEqual(['b']);
    expect(renderModelList(MODELS, { limit: '1', before_id: 'a' })).toMatchObject({ has_more: true });
    expect(renderModelList(MODELS, { limit: '5', before_id: 'a' })).toMatchObject({ has_more: false, first_id: 'c', last_id: 'b' });
  });

  it('should answer an unknown cursor with an empty page', () => {
    expect(renderModelList(MODELS, { after_id: 'gone' })).toEqual({ data: [], has_more: false, first_id: null, last_id: null });
  });

  it('should reject a limit outside 1..1000 and two cursors at once', () => {
    for (const limit of ['0', '1001', 'ten', '2.5']) {
      expect(() => renderModelList(MODELS, { limit })).toThrow(expect.objectContaining({ kind: 'invalid_request', param: 'limit' }));
    }
    expect(() => renderModelList(MODELS, { after_id: 'a', before_id: 'c' })).toThrow(expect.objectContaining({ param: 'before_id' }));
  });
});
