import {
  arrayOf,
  between,
  byKey,
  checkedParse,
  either,
  isBoolean,
  isInt,
  isPositiveInt,
  isRecordOfUnknown,
  isString,
  leftToZod,
  literal,
  looseObject,
  nullish,
  type Check,
} from '../shared/shape-checks.ts';
import { chatRequestSchema, type ChatRequest } from './schema.ts';

const textPart = looseObject({ type: literal('text'), text: isString });
const textContent = either(isString, arrayOf(textPart));

const functionToolCall = looseObject({
  id: isString,
  type: literal('function'),
  function: looseObject({ name: isString, arguments: isString }),
});

const name = nullish(isString);

const message = byKey('role', {
  system: looseObject({ content: textContent }, { name }),
  developer: looseObject({ content: textContent }, { name }),
  // Images, audio and files are left to zod with the rest of the user part union.
  user: looseObject({ content: textContent }, { name }),
  assistant: looseObject(
    {},
    {
      content: nullish(textContent),
      refusal: nullish(isString),
      tool_calls: nullish(arrayOf(functionToolCall)),
      function_call: nullish(leftToZod),
      reasoning_content: nullish(isString),
      name,
    },
  ),
  tool: looseObject({ tool_call_id: isString, content: textContent }),
});

const functionTool = looseObject({
  type: literal('function'),
  function: looseObject(
    { name: isString },
    { description: nullish(isString), parameters: nullish(isRecordOfUnknown), strict: nullish(isBoolean) },
  ),
});

const namedFunction = looseObject({ type: literal('function'), function: looseObject({ name: isString }) });
const toolChoice = either(literal('none', 'auto', 'required'), namedFunction);

const responseFormat = byKey('type', {
  text: looseObject({}),
  json_object: looseObject({}),
  json_schema: looseObject({
    json_schema: looseObject(
      { name: isString },
      { description: nullish(isString), schema: nullish(isRecordOfUnknown), strict: nullish(isBoolean) },
    ),
  }),
});

/**
 * With `model` and `messages`, every key of `chatRequestSchema.shape`: one missing here would
 * pass unchecked as an unknown key. A test holds the two together.
 */
const OPTIONAL_FIELDS: Record<string, Check> = {
  stream: nullish(isBoolean),
  stream_options: nullish(looseObject({}, { include_usage: nullish(isBoolean) })),
  max_completion_tokens: nullish(isPositiveInt),
  max_tokens: nullish(isPositiveInt),
  temperature: nullish(between(0, 2)),
  top_p: nullish(between(0, 1)),
  n: nullish(isPositiveInt),
  stop: nullish(either(isString, arrayOf(isString))),
  presence_penalty: nullish(between(-2, 2)),
  frequency_penalty: nullish(between(-2, 2)),
  seed: nullish(isInt),
  // Vendor tools, choices naming them and `allowed_tools` are left to zod, whose refinement
  // tells them from malformed function entries.
  tools: nullish(arrayOf(functionTool)),
  tool_choice: nullish(toolChoice),
  parallel_tool_calls: nullish(isBoolean),
  // The deprecated function-calling fields: present and not null, they go to zod.
  functions: nullish(leftToZod),
  function_call: nullish(leftToZod),
  response_format: nullish(responseFormat),
  reasoning_effort: nullish(literal('none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max')),
  user: nullish(isString),
  safety_identifier: nullish(isString),
};

const request = looseObject({ model: isString, messages: arrayOf(message, 1) }, OPTIONAL_FIELDS);

/**
 * True when `value` is a body `chatRequestSchema` accepts and would return unchanged: the
 * common shapes (text and tool conversations, sampling settings, function tools), each bound
 * of the schema checked; anything else is false and left to the schema. Its parse copies the
 * whole body: for the benchmark's one-message body, two thirds of what `requestToCanonical`
 * allocated and of its time. The schema stays the definition; a property test holds the two
 * together. What JSON cannot make (named properties on arrays, symbol keys, accessors) is not
 * looked for.
 */
export function isExactChatRequest(value: unknown): value is ChatRequest {
  return request(value);
}

/** `chatRequestSchema.safeParse`, without its parse and copy for a body the check vouches for. */
export const parseChatRequest = checkedParse(chatRequestSchema, isExactChatRequest);
