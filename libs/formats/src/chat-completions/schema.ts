import { z } from 'zod';

/**
 * The chat-completions request as clients send it (protocols.md §3.1–3.3). Objects are loose:
 * vendors add fields every month and unknown ones travel on as extensions, never as a 400.
 * Optional fields accept `null` because openai-node types them `T | null`.
 * Bounds are the product spec's (design.md §1), each reported with its param name.
 */

const textPartSchema = z.looseObject({ type: z.literal('text'), text: z.string() });

const refusalPartSchema = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });

const imagePartSchema = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({ url: z.string(), detail: z.enum(['auto', 'low', 'high']).nullish() }),
});

const audioPartSchema = z.looseObject({
  type: z.literal('input_audio'),
  input_audio: z.looseObject({ data: z.string(), format: z.string() }),
});

const filePartSchema = z.looseObject({
  type: z.literal('file'),
  file: z.looseObject({
    file_data: z.string().nullish(),
    file_id: z.string().nullish(),
    filename: z.string().nullish(),
  }),
});

const userPartSchema = z.discriminatedUnion('type', [textPartSchema, imagePartSchema, audioPartSchema, filePartSchema]);

const textContentSchema = z.union([z.string(), z.array(textPartSchema)]);

const functionToolCallSchema = z.looseObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

/** Free-text calls of `custom` tools; decoded as tool calls whose arguments are the raw input. */
const customToolCallSchema = z.looseObject({
  id: z.string(),
  type: z.literal('custom'),
  custom: z.looseObject({ name: z.string(), input: z.string() }),
});

const messageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content: textContentSchema, name: z.string().nullish() }),
  z.looseObject({ role: z.literal('developer'), content: textContentSchema, name: z.string().nullish() }),
  z.looseObject({
    role: z.literal('user'),
    content: z.union([z.string(), z.array(userPartSchema)]),
    name: z.string().nullish(),
  }),
  z.looseObject({
    role: z.literal('assistant'),
    content: z.union([z.string(), z.array(z.discriminatedUnion('type', [textPartSchema, refusalPartSchema]))]).nullish(),
    refusal: z.string().nullish(),
    tool_calls: z.array(z.discriminatedUnion('type', [functionToolCallSchema, customToolCallSchema])).nullish(),
    function_call: z.looseObject({ name: z.string(), arguments: z.string() }).nullish(),
    /** Non-standard (DeepSeek, vLLM): accepted on input, never required (protocols.md §3.5). */
    reasoning_content: z.string().nullish(),
    name: z.string().nullish(),
  }),
  z.looseObject({ role: z.literal('tool'), tool_call_id: z.string(), content: textContentSchema }),
  /** Deprecated `function` role: the result of a legacy `function_call`. */
  z.looseObject({ role: z.literal('function'), name: z.string(), content: z.string().nullable() }),
]);

const functionDefinitionSchema = z.looseObject({
  name: z.string(),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

const functionToolSchema = z.looseObject({ type: z.literal('function'), function: functionDefinitionSchema });

/**
 * Any other `type` (`custom`, future hosted tools), kept whole for same-format upstreams. The
 * refinement keeps the union discriminable by `type`: a malformed function entry is a 400, not
 * a vendor tool.
 */
function otherTypeSchema(...taken: string[]) {
  return z.looseObject({ type: z.string().refine((type) => !taken.includes(type), 'Invalid input') });
}

const otherToolSchema = otherTypeSchema('function');

const namedFunctionSchema = z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string() }) });

const allowedToolsChoiceSchema = z.looseObject({
  type: z.literal('allowed_tools'),
  allowed_tools: z.looseObject({
    mode: z.enum(['auto', 'required']),
    tools: z.array(z.union([namedFunctionSchema, otherToolSchema])),
  }),
});

const toolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  namedFunctionSchema,
  allowedToolsChoiceSchema,
  /** e.g. `{type:"custom",custom:{name}}`: only a same-format upstream can honour it. */
  otherTypeSchema('function', 'allowed_tools'),
]);

const responseFormatSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    json_schema: z.looseObject({
      name: z.string(),
      description: z.string().nullish(),
      schema: z.record(z.string(), z.unknown()).nullish(),
      strict: z.boolean().nullish(),
    }),
  }),
]);

export const chatRequestSchema = z.looseObject({
  model: z.string(),
  messages: z.array(messageSchema).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  max_completion_tokens: z.int().min(1).nullish(),
  max_tokens: z.int().min(1).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  n: z.int().min(1).nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  presence_penalty: z.number().min(-2).max(2).nullish(),
  frequency_penalty: z.number().min(-2).max(2).nullish(),
  seed: z.int().nullish(),
  tools: z.array(z.union([functionToolSchema, otherToolSchema])).nullish(),
  tool_choice: toolChoiceSchema.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  /** Deprecated function calling: read as tools / tool_choice. */
  functions: z.array(functionDefinitionSchema).nullish(),
  function_call: z.union([z.enum(['none', 'auto']), z.looseObject({ name: z.string() })]).nullish(),
  response_format: responseFormatSchema.nullish(),
  reasoning_effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']).nullish(),
  user: z.string().nullish(),
  safety_identifier: z.string().nullish(),
});

export type ChatRequest = z.infer<typeof chatRequestSchema>;
export type ChatMessage = z.infer<typeof messageSchema>;
export type ChatUserPart = z.infer<typeof userPartSchema>;
export type ChatTextPart = z.infer<typeof textPartSchema>;
export type ChatRefusalPart = z.infer<typeof refusalPartSchema>;
export type ChatToolCall = z.infer<typeof functionToolCallSchema>;
export type ChatCustomToolCall = z.infer<typeof customToolCallSchema>;
export type ChatFunctionDefinition = z.infer<typeof functionDefinitionSchema>;
export type ChatFunctionTool = z.infer<typeof functionToolSchema>;
export type ChatTool = ChatFunctionTool | z.infer<typeof otherToolSchema>;
export type ChatToolChoice = z.infer<typeof toolChoiceSchema>;
export type ChatNamedFunction = z.infer<typeof namedFunctionSchema>;
export type ChatAllowedToolsChoice = z.infer<typeof allowedToolsChoiceSchema>;
export type ChatResponseFormat = z.infer<typeof responseFormatSchema>;
