import { z } from 'zod';
import { contentSchema } from './schema.ts';

/**
 * What a generate-content upstream answers (protocols.md §6.3, §9). Nullish and loose: vendors
 * add fields every month and omit the ones they have nothing for.
 */

export const usageMetadataSchema = z.looseObject({
  promptTokenCount: z.number().nullish(),
  candidatesTokenCount: z.number().nullish(),
  thoughtsTokenCount: z.number().nullish(),
  toolUsePromptTokenCount: z.number().nullish(),
  cachedContentTokenCount: z.number().nullish(),
  totalTokenCount: z.number().nullish(),
});

export type UsageMetadata = z.infer<typeof usageMetadataSchema>;

const candidateSchema = z.looseObject({
  index: z.number().nullish(),
  content: contentSchema.nullish(),
  finishReason: z.string().nullish(),
});

/** One non-streaming answer, and also one chunk of `:streamGenerateContent` (§6.4). */
export const generateContentResponseSchema = z.looseObject({
  candidates: z.array(candidateSchema).nullish(),
  promptFeedback: z.looseObject({ blockReason: z.string().nullish() }).nullish(),
  usageMetadata: usageMetadataSchema.nullish(),
  modelVersion: z.string().nullish(),
  responseId: z.string().nullish(),
});

export type GenerateContentResponse = z.infer<typeof generateContentResponseSchema>;

const embeddingSchema = z.looseObject({ values: z.array(z.number()) });

/** `:embedContent` answers `embedding`, `:batchEmbedContents` answers `embeddings`. */
export const embedContentResponseSchema = z.looseObject({
  embedding: embeddingSchema.nullish(),
  embeddings: z.array(embeddingSchema).nullish(),
});
