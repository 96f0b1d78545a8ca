import { z } from 'zod';

/**
 * Zod schemas of a Responses API request (protocols.md §4.1). Loose: unknown fields are kept
 * (vendors add fields every month) and only what Switchyard reads is checked. Values may be
 * `null` wherever the OpenAI spec marks a field nullable.
 */

const inputText = z.looseObject({ type: z.literal('input_text'), text: z.string() });
const outputText = z.looseObject({ type: z.literal('output_text'), text: z.string() });
const refusal = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });
const inputImage = z.looseObject({
  type: z.literal('input_image'),
  image_url: z.string().nullish(),
  file_id: z.string().nullish(),
  detail: z.enum(['auto', 'low', 'high', 'original']).nullish(),
});
const inputFile = z.looseObject({
  type: z.literal('input_file'),
  file_data: z.string().nullish(),
  file_url: z.string().nullish(),
  file_id: z.string().nullish(),
  filename: z.string().nullish(),
});

const messageContentPart = z.discriminatedUnion('type', [inputText, outputText, refusal, inputImage, inputFile]);
const toolOutputPart = z.discriminatedUnion('type', [inputText, inputImage, inputFile]);

const messageItem = z.looseObject({
  // Message items may omit `type` (EasyInputMessage).
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(messageContentPart)]),
});
const functionCallItem = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
});
const functionCallOutputItem = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string(),
  output: z.union([z.string(), z.array(toolOutputPart)]),
});
const reasoningItem = z.looseObject({
  type: z.literal('reasoning'),
  id: z.string().nullish(),
  summary: z.array(z.looseObject({ text: z.string() })),
  content: z.array(z.looseObject({ text: z.string() })).nullish(),
  encrypted_content: z.string().nullish(),
});

const representableItem = z.discriminatedUnion('type', [
  messageItem,
  functionCallItem,
  functionCallOutputItem,
  reasoningItem,
]);
const REPRESENTABLE_ITEM_TYPES: ReadonlySet<unknown> = new Set([
  undefined,
  'message',
  'function_call',
  'function_call_output',
  'reasoning',
]);

/**
 * Any other item type (item_reference, hosted-tool calls and outputs). It passes validation so
 * the decoder can reject it with a message naming the type and the item's index.
 */
const otherItem = z.looseObject({
  // `abort` makes this branch fail hard, so zod reports the representable branch's issue instead.
  type: z.string().refine((type) => !REPRESENTABLE_ITEM_TYPES.has(type), { abort: true }),
});

export const inputItemSchema = z.union([representableItem, otherItem]);

const functionTool = z.looseObject({
  type: z.literal('function'),
  name: z.string(),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});
/** Hosted tools (web_search, file_search, mcp, …) have no canonical meaning and ride in extensions. */
const hostedTool = z.looseObject({ type: z.string().refine((type) => type !== 'function', { abort: true }) });

const functionToolChoice = z.looseObject({ type: z.literal('function'), name: z.string() });
const allowedToolsChoice = z.looseObject({
  type: z.literal('allowed_tools'),
  mode: z.enum(['auto', 'required']),
  tools: z.array(z.looseObject({ type: z.string(), name: z.string().nullish() })),
});
const hostedToolChoice = z.looseObject({
  type: z.string().refine((type) => type !== 'function' && type !== 'allowed_tools', { abort: true }),
});

const textFormat = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    name: z.string().nullish(),
    description: z.string().nullish(),
    schema: z.record(z.string(), z.unknown()),
    strict: z.boolean().nullish(),
  }),
]);

export const reasoningEfforts = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

export const requestSchema = z.looseObject({
  model: z.string().nullish(),
  input: z.union([z.string(), z.array(inputItemSchema)]).nullish(),
  instructions: z.string().nullish(),
  stream: z.boolean().nullish(),
  max_output_tokens: z.number().int().min(1).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  tools: z.array(z.union([functionTool, hostedTool])).nullish(),
  tool_choice: z
    .union([z.enum(['none', 'auto', 'required']), functionToolChoice, allowedToolsChoice, hostedToolChoice])
    .nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  text: z.looseObject({ format: textFormat.nullish() }).nullish(),
  reasoning: z
    .looseObject({
      effort: z.enum(reasoningEfforts).nullish(),
      summary: z.string().nullish(),
      generate_summary: z.string().nullish(),
    })
    .nullish(),
  store: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  user: z.string().nullish(),
  safety_identifier: z.string().nullish(),
});

export type RequestBody = z.infer<typeof requestSchema>;
export type InputItem = z.infer<typeof inputItemSchema>;
export type RepresentableInputItem = z.infer<typeof representableItem>;
export type MessageContentPart = z.infer<typeof messageContentPart>;
export type ToolOutputPart = z.infer<typeof toolOutputPart>;
export type FunctionTool = z.infer<typeof functionTool>;
export type RequestTool = FunctionTool | z.infer<typeof hostedTool>;
export type RequestToolChoice = NonNullable<RequestBody['tool_choice']>;
export type FunctionToolChoice = z.infer<typeof functionToolChoice>;
export type AllowedToolsChoice = z.infer<typeof allowedToolsChoice>;
export type TextFormat = z.infer<typeof textFormat>;

// The catch-all schemas type `type` as any string, so TypeScript cannot narrow on it alone.

export function isRepresentableItem(item: InputItem): item is RepresentableInputItem {
  return REPRESENTABLE_ITEM_TYPES.has(item.type);
}

export function isFunctionTool(tool: RequestTool): tool is FunctionTool {
  return tool.type === 'function';
}

export function isFunctionToolChoice(choice: Exclude<RequestToolChoice, string>): choice is FunctionToolChoice {
  return choice.type === 'function';
}

export function isAllowedToolsChoice(choice: Exclude<RequestToolChoice, string>): choice is AllowedToolsChoice {
  return choice.type === 'allowed_tools';
}
