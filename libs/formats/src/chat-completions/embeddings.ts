import { GatewayError } from '@switchyard/canonical';
import type { CanonicalEmbeddingRequest, CanonicalEmbeddingResponse } from '@switchyard/canonical';
import { z } from 'zod';
import { zodErrorToGatewayError } from '../shared/index.ts';
import type { RequestContext, UpstreamTarget } from '../wire-format.ts';
import { missingUsage } from './convert-usage.ts';
import { EMBEDDINGS_PATH } from './endpoint.ts';
import { packEmbedding, unpackEmbedding } from './pack-embedding.ts';

/** `POST /v1/embeddings` (protocols.md §9): text, texts, one token array, or token arrays. */
const embeddingRequestSchema = z.looseObject({
  model: z.string(),
  input: z.union([
    z.string(),
    z.array(z.string()).min(1),
    z.array(z.int()).min(1),
    z.array(z.array(z.int()).min(1)).min(1),
  ]),
  dimensions: z.int().min(1).nullish(),
  encoding_format: z.enum(['float', 'base64']).nullish(),
  user: z.string().nullish(),
});

/** What Switchyard reads from an upstream's answer; vectors arrive as floats or base64. */
const embeddingResponseSchema = z.object({
  data: z.array(z.object({ index: z.number().nullish(), embedding: z.union([z.array(z.number()), z.string()]) })),
  model: z.string().nullish(),
  usage: z.object({ prompt_tokens: z.number().nullish() }).nullish(),
});

export interface ChatEmbeddingResponseBody {
  object: 'list';
  data: Array<{ object: 'embedding'; index: number; embedding: number[] | string }>;
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

type EmbeddingInput = z.infer<typeof embeddingRequestSchema>['input'];

function isTokenArray(input: Exclude<EmbeddingInput, string>): input is number[] {
  return typeof input[0] === 'number';
}

export function embeddingRequestToCanonical(body: unknown, context: RequestContext): CanonicalEmbeddingRequest {
  const parsed = embeddingRequestSchema.safeParse(body);
  if (!parsed.success) throw zodErrorToGatewayError(parsed.error);
  const { model, input, dimensions, encoding_format: encodingFormat, user } = parsed.data;
  return {
    model: context.model ?? model,
    // One entry per vector wanted: a flat number array is one tokenised text.
    inputs: typeof input === 'string' || isTokenArray(input) ? [input] : input,
    dimensions: dimensions ?? undefined,
    // Absent means float, as OpenAI answers then.
    encodingFormat: encodingFormat ?? undefined,
    user: user ?? undefined,
  };
}

/**
 * The client's encoding is asked of the upstream too (base64 is the smaller answer); whatever
 * comes back is read either way. `taskType`/`title` (generate-content) have no chat field.
 */
export function embeddingRequestFromCanonical(
  request: CanonicalEmbeddingRequest,
  target: UpstreamTarget,
): { path: string; body: Record<string, unknown> } {
  return {
    path: EMBEDDINGS_PATH,
    body: {
      model: target.model,
      input: request.inputs,
      dimensions: request.dimensions,
      encoding_format: request.encodingFormat,
      user: request.user,
    },
  };
}

export function embeddingResponseToCanonical(body: unknown, request: CanonicalEmbeddingRequest): CanonicalEmbeddingResponse {
  const parsed = embeddingResponseSchema.safeParse(body);
  if (!parsed.success) {
    throw new GatewayError('upstream_error', 'The upstream answered with a body that is not an embeddings list.', {
      cause: parsed.error,
    });
  }
  const { data, model, usage } = parsed.data;
  const ordered = data.toSorted((a, b) => (a.index ?? 0) - (b.index ?? 0));
  const inputTokens = usage?.prompt_tokens;
  return {
    model: model ?? request.model,
    vectors: ordered.map((item) => (typeof item.embedding === 'string' ? unpackEmbedding(item.embedding) : item.embedding)),
    usage: inputTokens == null ? missingUsage() : { inputTokens, outputTokens: 0 },
  };
}

/** Honours the client's `encoding_format`: float arrays sent to an SDK that asked for base64 decode to empty vectors. */
export function embeddingResponseFromCanonical(
  response: CanonicalEmbeddingResponse,
  request: CanonicalEmbeddingRequest,
): ChatEmbeddingResponseBody {
  const base64 = request.encodingFormat === 'base64';
  return {
    object: 'list',
    data: response.vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: base64 ? packEmbedding(vector) : vector,
    })),
    model: request.model,
    usage: {
      prompt_tokens: response.usage.inputTokens,
      total_tokens: response.usage.inputTokens + response.usage.outputTokens,
    },
  };
}
