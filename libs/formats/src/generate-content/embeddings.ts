import {
  GatewayError,
  type CanonicalEmbeddingRequest,
  type CanonicalEmbeddingResponse,
} from '@switchyard/canonical';
import type { z } from 'zod';
import { zodErrorToGatewayError } from '../shared/index.ts';
import type { RequestContext, UpstreamTarget } from '../wire-format.ts';
import { embedContentResponseSchema } from './response-schema.ts';
import { batchEmbedContentsRequestSchema, embedContentRequestSchema, type EmbedContentRequest } from './schema.ts';

/**
 * `:embedContent` and `:batchEmbedContents` (protocols.md §9) ↔ canonical embeddings. One
 * Content is one vector; its text parts are joined by newlines. Canonical settings are per call,
 * so a batch whose items differ in task type, title or dimensionality is a 400 rather than a
 * batch answered with the first item's settings.
 */
export function embeddingsToCanonical(body: unknown, context: RequestContext): CanonicalEmbeddingRequest {
  if (context.model === undefined || context.model === '') {
    throw new GatewayError('invalid_request', 'The model name is missing from the URL.', { param: 'model' });
  }
  const batch = context.operation === 'batchEmbedContents';
  const items = batch ? parseBody(batchEmbedContentsRequestSchema, body).requests : [parseBody(embedContentRequestSchema, body)];
  const first = items[0]!;
  items.forEach((item, index) => {
    for (const key of ['taskType', 'title', 'outputDimensionality'] as const) {
      if (item[key] !== first[key]) {
        throw new GatewayError('invalid_request', `All requests of a batch must share ${key}.`, { param: `requests[${index}].${key}` });
      }
    }
  });

  const request: CanonicalEmbeddingRequest = {
    model: context.model,
    inputs: items.map((item, index) => embeddedText(item, batch ? `requests[${index}].content` : 'content')),
  };
  if (first.outputDimensionality != null) request.dimensions = first.outputDimensionality;
  if (first.taskType != null) request.taskType = first.taskType;
  if (first.title != null) request.title = first.title;
  if (batch) request.batch = true;
  return request;
}

function parseBody<Output>(schema: z.ZodType<Output>, body: unknown): Output {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw zodErrorToGatewayError(parsed.error);
  return parsed.data;
}

function embeddedText(item: EmbedContentRequest, param: string): string {
  return (item.content.parts ?? [])
    .map((part, index) => {
      if (part.text != null) return part.text;
      throw new GatewayError('invalid_request', 'Only text parts can be embedded through this endpoint.', { param: `${param}.parts[${index}]` });
    })
    .join('\n');
}

/** Always `:batchEmbedContents` upstream: it takes one input or many, as js-genai does (§9). */
export function embeddingsFromCanonical(request: CanonicalEmbeddingRequest, target: UpstreamTarget): { path: string; body: Record<string, unknown> } {
  const requests = request.inputs.map((input, index) => {
    if (typeof input !== 'string') {
      throw new GatewayError('invalid_request', 'generate-content embeds text only; token arrays cannot be sent.', { param: `input[${index}]` });
    }
    const item: Record<string, unknown> = { model: `models/${target.model}`, content: { parts: [{ text: input }] } };
    if (request.taskType !== undefined) item.taskType = request.taskType;
    if (request.title !== undefined) item.title = request.title;
    if (request.dimensions !== undefined) item.outputDimensionality = request.dimensions;
    return item;
  });
  return { path: `/v1beta/models/${target.model}:batchEmbedContents`, body: { requests } };
}

/** Gemini reports no usage for embeddings; the zero is marked estimated so callers can count themselves. */
export function embeddingsResponseToCanonical(body: unknown, request: CanonicalEmbeddingRequest): CanonicalEmbeddingResponse {
  const parsed = embedContentResponseSchema.safeParse(body);
  const data = parsed.success ? parsed.data : undefined;
  const vectors = data?.embeddings?.map((embedding) => embedding.values) ?? (data?.embedding == null ? undefined : [data.embedding.values]);
  if (vectors === undefined || vectors.length !== request.inputs.length) {
    throw new GatewayError('upstream_error', `The upstream answered with ${vectors?.length ?? 0} embeddings for ${request.inputs.length} inputs.`, {
      ...(parsed.error && { cause: parsed.error }),
    });
  }
  return { model: request.model, vectors, usage: { inputTokens: 0, outputTokens: 0, estimated: true } };
}

export function embeddingsResponseFromCanonical(response: CanonicalEmbeddingResponse, request: CanonicalEmbeddingRequest): unknown {
  if (request.batch === true) return { embeddings: response.vectors.map((values) => ({ values })) };
  return { embedding: { values: response.vectors[0] ?? [] } };
}
