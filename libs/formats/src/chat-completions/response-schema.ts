import { z } from 'zod';

/**
 * What Switchyard reads from an upstream's answers and stream chunks (protocols.md §3.4, §3.5).
 * Deliberately minimal and nullish: only the fields we use, so a vendor adding or nulling
 * something elsewhere cannot break decoding.
 */

export const chatUsageSchema = z.object({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  prompt_tokens_details: z
    .object({ cached_tokens: z.number().nullish(), cache_write_tokens: z.number().nullish() })
    .nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).nullish(),
});

const functionSchema = z.object({ name: z.string().nullish(), arguments: z.string().nullish() });

/**
 * Reasoning text as OpenAI-compatible servers add it: `reasoning_content` (DeepSeek, vLLM) or
 * the newer `reasoning` (vLLM ≥ 0.10, OpenRouter). Not part of the official format (§3.5).
 */
const reasoningFields = {
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
};

export const chatCompletionSchema = z.object({
  id: z.string().nullish(),
  model: z.string().nullish(),
  created: z.number().nullish(),
  choices: z.array(
    z.object({
      message: z.object({
        content: z.string().nullish(),
        refusal: z.string().nullish(),
        tool_calls: z.array(z.object({ id: z.string().nullish(), function: functionSchema })).nullish(),
        ...reasoningFields,
      }),
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: chatUsageSchema.nullish(),
});

export const chatChunkSchema = z.object({
  id: z.string().nullish(),
  model: z.string().nullish(),
  created: z.number().nullish(),
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullish(),
            refusal: z.string().nullish(),
            tool_calls: z
              .array(z.object({ index: z.number().nullish(), id: z.string().nullish(), function: functionSchema.nullish() }))
              .nullish(),
            ...reasoningFields,
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: chatUsageSchema.nullish(),
});

export type ChatUsage = z.infer<typeof chatUsageSchema>;
export type ChatCompletion = z.infer<typeof chatCompletionSchema>;
export type ChatChunk = z.infer<typeof chatChunkSchema>;
export type ChatChunkToolCall = NonNullable<NonNullable<NonNullable<ChatChunk['choices']>[number]['delta']>['tool_calls']>[number];
