import { describe, expect, it } from 'vitest';
import {
  embeddingsFromCanonical,
  embeddingsResponseFromCanonical,
  embeddingsResponseToCanonical,
  embeddingsToCanonical,
} from './embeddings.ts';

const target = { model: 'gemini-embedding-001' };

describe('embeddingsToCanonical', () => {
  it('should read a single embedContent request', () => {
    expect(
      embeddingsToCanonical(
        { content: { parts: [{ text: 'Hello' }, { text: 'world' }] }, taskType: 'RETRIEVAL_DOCUMENT', title: 'Greeting', outputDimensionality: 768 },
        { model: 'embed', operation: 'embedContent' },
      ),
    ).toEqual({ model: 'embed', inputs: ['Hello\nworld'], taskType: 'RETRIEVAL_DOCUMENT', title: 'Greeting', dimensions: 768 });
  });

  it('should read a batch and mark it', () => {
    expect(
      embeddingsToCanonical(
        {
          requests: [
            { model: 'models/embed', content: { parts: [{ text: 'a' }] }, taskType: 'CLUSTERING' },
            { model: 'models/embed', content: { parts: [{ text: 'b' }] }, taskType: 'CLUSTERING' },
          ],
        },
        { model: 'embed', operation: 'batchEmbedContents' },
      ),
    ).toEqual({ model: 'embed', inputs: ['a', 'b'], taskType: 'CLUSTERING', batch: true });
  });

  it('should refuse batches with mixed settings and non-text parts', () => {
    const context = { model: 'embed', operation: 'batchEmbedContents' };
    expect(() =>
      embeddingsToCanonical(
        { requests: [{ content: { parts: [{ text: 'a' }] } }, { content: { parts: [{ text: 'b' }] }, taskType: 'CLUSTERING' }] },
        context,
      ),
    ).toThrow(expect.objectContaining({ status: 400, param: 'requests[1].taskType' }));
    expect(() => embeddingsToCanonical({ requests: [{ content: { parts: [{ inlineData: { mimeType: 'image/png', data: 'x' } }] } }] }, context)).toThrow(
      expect.objectContaining({ param: 'requests[0].content.parts[0]' }),
    );
    expect(() => embeddingsToCanonical({ requests: [] }, context)).toThrow(expect.objectContaining({ param: 'requests' }));
  });
});

describe('embeddingsFromCanonical', () => {
  it('should always call batchEmbedContents upstream, one request per input', () => {
    expect(embeddingsFromCanonical({ model: 'embed', inputs: ['a', 'b'], dimensions: 256, taskType: 'RETRIEVAL_QUERY' }, target)).toEqual({
      path: '/v1beta/models/gemini-embedding-001:batchEmbedContents',
      body: {
        requests: [
          { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'a' }] }, taskType: 'RETRIEVAL_QUERY', outputDimensionality: 256 },
          { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'b' }] }, taskType: 'RETRIEVAL_QUERY', outputDimensionality: 256 },
        ],
      },
    });
  });

  it('should refuse token-array inputs', () => {
    expect(() => embeddingsFromCanonical({ model: 'embed', inputs: ['a', [1, 2]] }, target)).toThrow(expect.objectContaining({ param: 'input[1]' }));
  });
});

describe('embedding responses', () => {
  it('should read both answer shapes with an estimated zero usage', () => {
    const request = { model: 'embed', inputs: ['a', 'b'] };
    expect(embeddingsResponseToCanonical({ embeddings: [{ values: [0.1, 0.2] }, { values: [0.3, 0.4] }] }, request)).toEqual({
      model: 'embed',
      vectors: [
        [0.1, 0.2],
        [0.3, 0.4],
      ],
      usage: { inputTokens: 0, outputTokens: 0, estimated: true },
    });
    expect(embeddingsResponseToCanonical({ embedding: { values: [0.5] } }, { model: 'embed', inputs: ['a'] }).vectors).toEqual([[0.5]]);
    expect(() => embeddingsResponseToCanonical({ embeddings: [{ values: [1] }] }, request)).toThrow(expect.objectContaining({ kind: 'upstream_error' }));
  });

  it('should answer single requests with embedding and batches with embeddings', () => {
    const response = { model: 'embed', vectors: [[0.5, 0.25]], usage: { inputTokens: 0, outputTokens: 0 } };
    expect(embeddingsResponseFromCanonical(response, { model: 'embed', inputs: ['a'] })).toEqual({ embedding: { values: [0.5, 0.25] } });
    expect(embeddingsResponseFromCanonical(response, { model: 'embed', inputs: ['a'], batch: true })).toEqual({ embeddings: [{ values: [0.5, 0.25] }] });
  });
});
