import { z } from 'zod';

/**
 * The messages request as zod sees it (protocols.md §5.1–5.3). Objects are loose: vendors add
 * fields every month and unknown ones (`cache_control`, `citations`, `context` …) are kept,
 * never rejected; only fields the decoder reads are declared.
 */

/**
 * Runs `schema` on a value and reports its issues at the value's own path. zod's unions report
 * only "Invalid input" at the union; dispatching by hand keeps the param as precise as
 * `messages[0].content[1].source`.
 */
function parseInto<T extends z.ZodType>(schema: T, value: unknown, context: z.RefinementCtx): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) context.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  return z.NEVER;
}

/** A string or, when the value is an array, whatever `schema` makes of it. */
function stringOr<T extends z.ZodType>(schema: T) {
  return z.unknown().transform((value, context): string | z.output<T> => {
    if (typeof value === 'string') return value;
    return parseInto(schema, value, context);
  });
}

const textBlockSchema = z.looseObject({ type: z.literal('text'), text: z.string() });

const base64Source = z.looseObject({ type: z.literal('base64'), media_type: z.string(), data: z.string() });
const urlSource = z.looseObject({ type: z.literal('url'), url: z.string() });
const fileSource = z.looseObject({ type: z.literal('file'), file_id: z.string() });

const imageBlockSchema = z.looseObject({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [base64Source, urlSource, fileSource]),
});

const documentBlockSchema = z.looseObject({
  type: z.literal('document'),
  source: z.discriminatedUnion('type', [
    base64Source,
    urlSource,
    fileSource,
    z.looseObject({ type: z.literal('text'), media_type: z.string().optional(), data: z.string() }),
    z.looseObject({ type: z.literal('content'), content: stringOr(z.array(textBlockSchema)) }),
  ]),
  title: z.string().nullish(),
});

const toolUseBlockSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
});

/**
 * A content block checked by the schema for its `type`. Types not listed pass as `unsupported`
 * (server-tool history, future kinds) for the decoder to drop, instead of failing the request.
 */
function blockOf<Schemas extends Record<string, z.ZodType>>(schemas: Schemas) {
  return z
    .looseObject({ type: z.string() })
    .transform((block, context): z.output<Schemas[keyof Schemas]> | { type: 'unsupported'; original: string } => {
      const schema: z.ZodType | undefined = Object.hasOwn(schemas, block.type) ? schemas[block.type] : undefined;
      if (schema === undefined) return { type: 'unsupported', original: block.type };
      return parseInto(schema, block, context) as z.output<Schemas[keyof Schemas]>;
    });
}

/** What a tool_result may hold that the canonical model can carry (protocols.md §5.2). */
const toolResultContentBlock = blockOf({ text: textBlockSchema, image: imageBlockSchema, document: documentBlockSchema });

const toolResultBlockSchema = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: stringOr(z.array(toolResultContentBlock)).optional(),
  is_error: z.boolean().optional(),
});

const thinkingBlockSchema = z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() });
const redactedThinkingBlockSchema = z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() });

const contentBlockSchema = blockOf({
  text: textBlockSchema,
  image: imageBlockSchema,
  document: documentBlockSchema,
  tool_use: toolUseBlockSchema,
  tool_result: toolResultBlockSchema,
  thinking: thinkingBlockSchema,
  redacted_thinking: redactedThinkingBlockSchema,
});

const messageSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: stringOr(z.array(contentBlockSchema)),
});

/** Custom tools have no `type` (or `custom`); server tools carry a versioned one (`web_search_20250305`). */
const toolSchema = z.looseObject({
  type: z.string().optional(),
  name: z.string(),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()).optional(),
  strict: z.boolean().optional(),
});

const parallelOption = { disable_parallel_tool_use: z.boolean().optional() };

const toolChoiceSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('auto'), ...parallelOption }),
  z.looseObject({ type: z.literal('any'), ...parallelOption }),
  z.looseObject({ type: z.literal('tool'), name: z.string(), ...parallelOption }),
  z.looseObject({ type: z.literal('none') }),
]);

const thinkingSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().int().min(0), display: z.string().nullish() }),
  z.looseObject({ type: z.literal('adaptive'), display: z.string().nullish() }),
  z.looseObject({ type: z.literal('disabled') }),
]);

const outputConfigSchema = z.looseObject({
  effort: z.enum(['low', 'medium', 'high', 'xhigh', 'max']).nullish(),
  format: z.looseObject({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) }).nullish(),
});

/** `/v1/messages/count_tokens` takes the messages body minus `max_tokens` and `stream` (protocols.md §9). */
export const countTokensRequestSchema = z.looseObject({
  model: z.string(),
  messages: z.array(messageSchema).min(1),
  system: stringOr(z.array(textBlockSchema)).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  stop_sequences: z.array(z.string()).optional(),
  tools: z.array(toolSchema).optional(),
  tool_choice: toolChoiceSchema.optional(),
  thinking: thinkingSchema.optional(),
  output_config: outputConfigSchema.optional(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).optional(),
});

/** design.md §1 names the bounds: max_tokens ≥ 1 (required), temperature 0–1. */
export const messagesRequestSchema = countTokensRequestSchema.extend({
  max_tokens: z.number().int().min(1),
  stream: z.boolean().optional(),
});

export const usageSchema = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
  output_tokens_details: z.looseObject({ thinking_tokens: z.number().nullish() }).nullish(),
});

/** A non-streaming answer (protocols.md §5.4); everything but `content` may be missing on compatible upstreams. */
export const messagesResponseSchema = z.looseObject({
  id: z.string().nullish(),
  model: z.string().nullish(),
  content: z.array(contentBlockSchema),
  stop_reason: z.string().nullish(),
  stop_sequence: z.string().nullish(),
  usage: usageSchema.nullish(),
});

export type CountTokensRequest = z.output<typeof countTokensRequestSchema>;
export type MessageParam = z.output<typeof messageSchema>;
export type ContentBlock = z.output<typeof contentBlockSchema>;
export type ToolResultContentBlock = z.output<typeof toolResultContentBlock>;
export type ImageBlock = z.output<typeof imageBlockSchema>;
export type DocumentBlock = z.output<typeof documentBlockSchema>;
export type ToolParam = z.output<typeof toolSchema>;
export type ToolChoiceParam = z.output<typeof toolChoiceSchema>;
export type ThinkingParam = z.output<typeof thinkingSchema>;
export type OutputConfigParam = z.output<typeof outputConfigSchema>;
