import type { z } from 'zod';
import { arrayOf, between, byKey, checkedParse, either, intFrom, isBoolean, isRecordOfUnknown, isString, literal, looseObject, nullish, type Check } from '../shared/shape-checks.ts';
import { messagesRequestSchema } from './schema.ts';

type MessagesRequest = z.output<typeof messagesRequestSchema>;

/**
 * Keyed on `type`, like the schema's `discriminatedUnion`s and `blockOf`; an unlisted type
 * (which `blockOf` would turn into an `unsupported` block) is left to zod.
 */
const byType = (options: Record<string, Check>): Check => byKey('type', options);
/** `z.unknown()` in a loose object: anything, but the key must be there. */
const isPresent: Check = (value) => value !== undefined;

const textBlock = looseObject({ type: literal('text'), text: isString });
const textContent = either(isString, arrayOf(textBlock));

// Images and documents are left to zod, with every type `blockOf` does not list.
const contentBlock = byType({
  text: textBlock,
  tool_use: looseObject({ id: isString, name: isString, input: isPresent }),
  tool_result: looseObject({ tool_use_id: isString }, { content: textContent, is_error: isBoolean }),
  thinking: looseObject({ thinking: isString, signature: isString }),
  redacted_thinking: looseObject({ data: isString }),
});

const message = looseObject({ role: literal('user', 'assistant'), content: either(isString, arrayOf(contentBlock)) });

// Server tools are left to zod: they travel on to the upstream as extensions, and zod's copy
// puts their declared keys first.
const tool = looseObject(
  { name: isString },
  { type: literal('custom'), description: isString, input_schema: isRecordOfUnknown, strict: isBoolean },
);

const parallel = { disable_parallel_tool_use: isBoolean };
const toolChoice = byType({
  auto: looseObject({}, parallel),
  any: looseObject({}, parallel),
  tool: looseObject({ name: isString }, parallel),
  none: looseObject({}),
});

const display = { display: nullish(isString) };
const thinking = byType({
  enabled: looseObject({ budget_tokens: intFrom(0) }, display),
  adaptive: looseObject({}, display),
  disabled: looseObject({}),
});

const outputConfig = looseObject(
  {},
  {
    effort: nullish(literal('low', 'medium', 'high', 'xhigh', 'max')),
    format: nullish(looseObject({ type: literal('json_schema'), schema: isRecordOfUnknown })),
  },
);

/**
 * With the required fields, every key of `messagesRequestSchema.shape`: one missing here would
 * pass unchecked as an unknown key. A test holds the two together.
 */
const request = looseObject(
  { model: isString, messages: arrayOf(message, 1), max_tokens: intFrom(1) },
  {
    system: textContent,
    temperature: between(0, 1),
    top_p: between(0, 1),
    top_k: intFrom(0),
    stop_sequences: arrayOf(isString),
    tools: arrayOf(tool),
    tool_choice: toolChoice,
    thinking,
    output_config: outputConfig,
    metadata: looseObject({}, { user_id: nullish(isString) }),
    stream: isBoolean,
  },
);

/**
 * True when `value` is a body `messagesRequestSchema` accepts and would return unchanged: the
 * common shapes (text, tool and thinking conversations, sampling settings, custom tools), each
 * bound of the schema checked; anything else is false and left to the schema. Its parse copies
 * the whole body (twice for content blocks, which `blockOf` parses again): for the benchmark's
 * one-message body, two thirds of what `requestToCanonical` allocated and of its time. The
 * schema stays the definition; a property test holds the two together. What JSON cannot make
 * (named properties on arrays, symbol keys, accessors) is not looked for.
 */
export function isExactMessagesRequest(value: unknown): value is MessagesRequest {
  return request(value);
}

/** `messagesRequestSchema.safeParse`, without its parse and copy for a body the check vouches for. */
export const parseMessagesRequest = checkedParse(messagesRequestSchema, isExactMessagesRequest);
