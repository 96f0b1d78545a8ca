import { GatewayError } from '@switchyard/canonical';
import type { CanonicalEmbeddingRequest } from '@switchyard/canonical';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import {
  embeddingRequestFromCanonical,
  embeddingRequestToCanonical,
  embeddingResponseFromCanonical,
  embeddingResponseToCanonical,
} from './embeddings.ts';
import { packEmbedding } from './pack-embedding.ts';

const request: CanonicalEmbeddingRequest = { model: 'embed-small', inputs: ['a', 'b'], encodingFormat: 'base64' };

describe('embeddingRequestToCanonical', () => {
  it.each<[unknown, Array<string | number[]>]>([
    ['hello', ['hello']],
    [['a', 'b'], ['a', 'b']],
    [[1, 2, 3], [[1, 2, 3]]],
    [[[1, 2], [3]], [[1, 2], [3]]],
  ])('should read input %j as one entry per vector', (input, inputs) => {
    expect(embeddingRequestToCanonical({ model: 'm', input }, {}).inputs).toEqual(inputs);
  });

  it('should read dimensions, encoding and user', () => {
    expect(
      embeddingRequestToCanonical({ model: 'm', input: 'x', dimensions: 256, encoding_format: 'base64', user: 'u' }, {}),
    ).toEqual({ model: 'm', inputs: ['x'], dimensions: 256, encodingFormat: 'base64', user: 'u' });
  });

  it.each([
    ['input', { model: 'm', input: [] }],
    ['input', { model: 'm' }],
    ['encoding_format', { model: 'm', input: 'x', encoding_format: 'int8' }],
    ['dimensions', { model: 'm', input: 'x', dimensions: 0 }],
    ['model', { input: 'x' }],
  ])('should answer 400 naming %s', (param, body) => {
    let error: unknown;
    try {
      embeddingRequestToCanonical(body, {});
    } catch (caught) {
      error = caught;
    }
    expect(GatewayError.isInstance(error) && [error.kind, error.param]).toEqual(['invalid_request', param]);
  });
});

describe('embeddingRequestFromCanonical', () => {
  it('should address /embeddings with the target model', () => {
    expect(embeddingRequestFromCanonical({ ...request, dimensions: 64, taskType: 'RETRIEVAL_QUERY' }, { model: 'text-embedding-3-small' })).toEqual({
      path: '/embeddings',
      body: { model: 'text-embedding-3-small', input: ['a', 'b'], dimensions: 64, encoding_format: 'base64' },
    });
  });
});

describe('embeddingResponseToCanonical', () => {
  it('should read float arrays and base64 vectors in index order', () => {
    const body = {
      object: 'list',
      model: 'text-embedding-3-small',
      data: [
        { object: 'embedding', index: 1, embedding: packEmbedding([0.5, -1]) },
        { object: 'embedding', index: 0, embedding: [0.25, 2] },
      ],
      usage: { prompt_tokens: 5, total_tokens: 5 },
    };
    expect(embeddingResponseToCanonical(body, request)).toEqual({
      model: 'text-embedding-3-small',
      vectors: [
        [0.25, 2],
        [0.5, -1],
      ],
      usage: { inputTokens: 5, outputTokens: 0 },
    });
  });

  it('should mark missing usage as estimated and refuse a body that is no list', () => {
    expect(embeddingResponseToCanonical({ data: [{ embedding: [1] }] }, request).usage).toEqual({ inputTokens: 0, outputTokens: 0, estimated: true });
    expect(() => embeddingResponseToCanonical({ embedding: { values: [1] } }, request)).toThrow('not an embeddings list');
  });
});

describe('embeddingResponseFromCanonical', () => {
  const response = { model: 'upstream', vectors: [[0.0123, -0.0456], [1, 2]], usage: { inputTokens: 5, outputTokens: 0 } };

  it('should answer floats when the client asked for floats or nothing', () => {
    expect(embeddingResponseFromCanonical(response, { ...request, encodingFormat: undefined })).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0.0123, -0.0456] },
        { object: 'embedding', index: 1, embedding: [1, 2] },
      ],
      model: 'embed-small',
      usage: { prompt_tokens: 5, total_tokens: 5 },
    });
  });

  it('should answer base64 that openai-node decodes back to the same floats', async () => {
    const body = embeddingResponseFromCanonical(response, request);
    const client = new OpenAI({ apiKey: 'sk-test', maxRetries: 0, fetch: async () => Response.json(body) });
    const result = await client.embeddings.create({ model: 'embed-small', input: ['a', 'b'] });
    expect(result.data.map((item) => item.embedding)).toEqual(response.vectors.map((vector) => vector.map(Math.fround)));
  });
});
