import { z } from 'zod';

/**
 * Zod schemas of the generate-content wire (protocols.md §6). Loose: unknown fields are kept
 * (they become extensions), never rejected. Google's JSON mapping also accepts snake_case
 * names and its own REST samples use them (`system_instruction`, `inline_data`), so every object
 * below also accepts the snake_case spelling of its known keys; output is always camelCase.
 */

/** `systemInstruction` → `system_instruction`. */
function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** The snake_case spelling of each camelCase key, beside the key: `['system_instruction', 'systemInstruction']`. */
export function snakeCaseAliases(keys: readonly string[]): (readonly [alias: string, key: string])[] {
  return keys.filter((key) => /[A-Z]/.test(key)).map((key) => [snakeCase(key), key] as const);
}

/**
 * A loose object whose camelCase keys may also arrive in snake_case. The renaming copies the
 * object only when an alias is present, so the common camelCase body costs a few `in` checks.
 */
function camelObject<Shape extends z.ZodRawShape>(shape: Shape) {
  const aliases = snakeCaseAliases(Object.keys(shape));
  return z.preprocess((value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    let renamed: Record<string, unknown> | undefined;
    for (const [alias, key] of aliases) {
      if (alias in value && !(key in value)) {
        renamed ??= { ...(value as Record<string, unknown>) };
        renamed[key] = renamed[alias];
        delete renamed[alias];
      }
    }
    return renamed ?? value;
  }, z.looseObject(shape));
}

const jsonObject = z.record(z.string(), z.unknown());

const blobSchema = camelObject({ mimeType: z.string(), data: z.string() });

const fileDataSchema = camelObject({ mimeType: z.string().nullish(), fileUri: z.string() });

/** Media inside a multimodal function response (newer models). */
const functionResponsePartSchema = camelObject({
  inlineData: blobSchema.nullish(),
  fileData: fileDataSchema.nullish(),
});

const partSchema = camelObject({
  text: z.string().nullish(),
  thought: z.boolean().nullish(),
  thoughtSignature: z.string().nullish(),
  inlineData: blobSchema.nullish(),
  fileData: fileDataSchema.nullish(),
  functionCall: camelObject({ id: z.string().nullish(), name: z.string(), args: jsonObject.nullish() }).nullish(),
  functionResponse: camelObject({
    id: z.string().nullish(),
    name: z.string(),
    response: jsonObject.nullish(),
    parts: z.array(functionResponsePartSchema).nullish(),
  }).nullish(),
  executableCode: camelObject({ language: z.string().nullish(), code: z.string() }).nullish(),
  codeExecutionResult: camelObject({ outcome: z.string().nullish(), output: z.string().nullish() }).nullish(),
});

export type Part = z.infer<typeof partSchema>;

/** Google's REST samples sometimes give `parts` as one object instead of a list. */
const partsSchema = z.preprocess(
  (value) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? [value] : value),
  z.array(partSchema),
);

export const contentSchema = camelObject({
  /** Checked where it matters (convert-contents.ts), so an odd role never fails an upstream answer. */
  role: z.string().nullish(),
  parts: partsSchema.nullish(),
});

export type Content = z.infer<typeof contentSchema>;

const functionDeclarationSchema = camelObject({
  name: z.string().min(1),
  description: z.string().nullish(),
  /** OpenAPI-3.0 subset (upper-case type names). */
  parameters: jsonObject.nullish(),
  /** Real JSON Schema; mutually exclusive with `parameters`. */
  parametersJsonSchema: jsonObject.nullish(),
});

/** One entry of `tools`: function declarations, or a hosted tool (googleSearch, codeExecution, …). */
const toolSchema = camelObject({ functionDeclarations: z.array(functionDeclarationSchema).nullish() });

export type Tool = z.infer<typeof toolSchema>;

const functionCallingConfigSchema = camelObject({
  mode: z.enum(['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED']).nullish(),
  allowedFunctionNames: z.array(z.string()).nullish(),
});

const toolConfigSchema = camelObject({ functionCallingConfig: functionCallingConfigSchema.nullish() });

export type ToolConfig = z.infer<typeof toolConfigSchema>;

const thinkingConfigSchema = camelObject({
  thinkingBudget: z.number().int().nullish(),
  includeThoughts: z.boolean().nullish(),
  thinkingLevel: z.enum(['THINKING_LEVEL_UNSPECIFIED', 'MINIMAL', 'LOW', 'MEDIUM', 'HIGH']).nullish(),
});

/** Bounds are the product spec's (design.md §1), not a model's `maxTemperature`. */
const generationConfigSchema = camelObject({
  temperature: z.number().min(0).max(2).nullish(),
  topP: z.number().min(0).max(1).nullish(),
  topK: z.number().min(0).nullish(),
  candidateCount: z.number().int().min(1).nullish(),
  maxOutputTokens: z.number().int().min(1).nullish(),
  stopSequences: z.array(z.string()).nullish(),
  presencePenalty: z.number().nullish(),
  frequencyPenalty: z.number().nullish(),
  seed: z.number().int().nullish(),
  responseMimeType: z.string().nullish(),
  /** OpenAPI-3.0 subset. */
  responseSchema: jsonObject.nullish(),
  /** Real JSON Schema. */
  responseJsonSchema: jsonObject.nullish(),
  responseModalities: z.array(z.string()).nullish(),
  thinkingConfig: thinkingConfigSchema.nullish(),
});

export type GenerationConfig = z.infer<typeof generationConfigSchema>;

export const generateContentRequestSchema = camelObject({
  contents: z.array(contentSchema).min(1),
  systemInstruction: contentSchema.nullish(),
  tools: z.array(toolSchema).nullish(),
  toolConfig: toolConfigSchema.nullish(),
  generationConfig: generationConfigSchema.nullish(),
});

export type GenerateContentRequest = z.infer<typeof generateContentRequestSchema>;

/** `:countTokens` takes `contents` or a whole `generateContentRequest` (protocols.md §9). */
export const countTokensRequestSchema = camelObject({
  contents: z.array(contentSchema).min(1).nullish(),
  generateContentRequest: generateContentRequestSchema.nullish(),
});

export const embedContentRequestSchema = camelObject({
  /** Only inside `:batchEmbedContents` requests (`models/<id>`); the URL's model wins. */
  model: z.string().nullish(),
  content: contentSchema,
  taskType: z.string().nullish(),
  title: z.string().nullish(),
  outputDimensionality: z.number().int().min(1).nullish(),
});

export type EmbedContentRequest = z.infer<typeof embedContentRequestSchema>;

export const batchEmbedContentsRequestSchema = camelObject({
  requests: z.array(embedContentRequestSchema).min(1),
});
