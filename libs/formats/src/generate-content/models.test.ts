import type { ModelInfo } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { renderModel, renderModelList } from './models.ts';

const chat: ModelInfo = {
  id: 'fast-chat',
  created: 1767225600,
  ownedBy: 'switchyard',
  displayName: 'Fast chat',
  description: 'Fast multimodal model',
  maxInputTokens: 1048576,
  maxOutputTokens: 65536,
  kind: 'chat',
};
const embedding: ModelInfo = { id: 'embed', created: 1767225600, ownedBy: 'switchyard', kind: 'embedding' };

describe('renderModel', () => {
  it('should render the Google model shape with generation methods by kind', () => {
    expect(renderModel(chat)).toEqual({
      name: 'models/fast-chat',
      baseModelId: 'fast-chat',
      version: '001',
      displayName: 'Fast chat',
      description: 'Fast multimodal model',
      inputTokenLimit: 1048576,
      outputTokenLimit: 65536,
      supportedGenerationMethods: ['generateContent', 'countTokens'],
    });
    expect(renderModel(embedding)).toEqual({
      name: 'models/embed',
      baseModelId: 'embed',
      version: '001',
      displayName: 'embed',
      supportedGenerationMethods: ['embedContent', 'batchEmbedContents'],
    });
  });
});

describe('renderModelList', () => {
  const models = Array.from({ length: 5 }, (_, index) => ({ ...embedding, id: `m${index}` }));
  const names = (list: unknown) => (list as { models: Array<{ name: string }> }).models.map((model) => model.name);

  it('should page with pageSize and an opaque pageToken, leaving nextPageToken off the last page', () => {
    const first = renderModelList(models, { pageSize: '2' }) as { nextPageToken: string };
    expect(names(first)).toEqual(['models/m0', 'models/m1']);
    const second = renderModelList(models, { pageSize: '2', pageToken: first.nextPageToken }) as { nextPageToken: string };
    expect(names(second)).toEqual(['models/m2', 'models/m3']);
    const last = renderModelList(models, { pageSize: '2', pageToken: second.nextPageToken });
    expect(last).toEqual({ models: [expect.objectContaining({ name: 'models/m4' })] });
  });

  it('should default to 50 per page and cap at 1000', () => {
    const many = Array.from({ length: 1200 }, (_, index) => ({ ...embedding, id: `m${index}` }));
    expect(names(renderModelList(many, {}))).toHaveLength(50);
    expect(names(renderModelList(many, { pageSize: '5000' }))).toHaveLength(1000);
  });

  it('should refuse a malformed page size or token with the param', () => {
    expect(() => renderModelList(models, { pageSize: 'ten' })).toThrow(expect.objectContaining({ status: 400, param: 'pageSize' }));
    expect(() => renderModelList(models, { pageToken: '!!' })).toThrow(expect.objectContaining({ status: 400, param: 'pageToken' }));
  });
});
