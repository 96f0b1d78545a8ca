import fc from 'fast-check';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { caught, expectExactAsSchema, mutatedLike, nullable, numberIn, object, rarely, text } from '../testing/test-support.ts';
import { SCENARIOS } from '../../../../bench/lib/scenarios.ts';
import { isExactChatRequest } from './is-chat-request.ts';
import { requestToCanonical } from './request.ts';
import { chatRequestSchema } from './schema.ts';

const notSafeInt = [0.5, Number.MAX_SAFE_INTEGER + 1, -Number.MAX_SAFE_INTEGER - 1, Number.NaN] as const;
const positiveInt = rarely(fc.oneof(fc.integer({ min: 1, max: 4_096 }), fc.constant(Number.MAX_SAFE_INTEGER)), fc.constantFrom(0, -1, -0, ...notSafeInt));
const int = rarely(fc.oneof(fc.integer(), fc.constantFrom(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)), fc.constantFrom(...notSafeInt));
/** One of `valid`, now and then a near miss. */
const oneOf = (valid: string[], wrong: string[]) => rarely(fc.constantFrom(...valid), fc.constantFrom(...wrong));

const textPart = object({ type: fc.constant('text'), text }, { cache_control: fc.constant({ type: 'ephemeral' }) });
const imagePart = object({ type: fc.constant('image_url'), image_url: object({ url: text }, { detail: nullable(fc.constantFrom('auto', 'low', 'high')) }) });
const refusalPart = object({ type: fc.constant('refusal'), refusal: text });
const unknownPart = object({ type: fc.constantFrom('image', 'Text', 'input_text'), text });
const textContent = fc.oneof(text, fc.array(textPart, { maxLength: 2 }));
const functionCall = object({ name: text, arguments: text });
const toolCall = rarely(
  object({ id: text, type: fc.constant('function'), function: functionCall }),
  object({ id: text, type: fc.constant('custom'), custom: object({ name: text, input: text }) }),
);
const message = fc.oneof(
  object({ role: fc.constantFrom('system', 'developer'), content: textContent }, { name: nullable(text) }),
  object({ role: fc.constant('user'), content: fc.oneof(text, fc.array(rarely(textPart, fc.oneof(imagePart, unknownPart)), { maxLength: 2 })) }, { name: nullable(text) }),
  object(
    { role: fc.constant('assistant') },
    {
      content: nullable(fc.oneof(text, fc.array(rarely(textPart, fc.oneof(refusalPart, unknownPart)), { maxLength: 2 }))),
      refusal: nullable(text),
      tool_calls: nullable(fc.array(toolCall, { maxLength: 2 })),
      function_call: rarely(fc.constant(null), functionCall),
      reasoning_content: nullable(text),
      name: nullable(text),
    },
  ),
  object({ role: fc.constant('tool'), tool_call_id: text, content: textContent }),
  object({ role: fc.constant('function'), name: text, content: nullable(text) }),
  object({ role: fc.constantFrom('robot', 'System', ''), content: text }),
);

const jsonSchema = fc.oneof(
  fc.constant({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
  fc.dictionary(text, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2, noNullPrototype: true }),
);
const functionDefinition = object({ name: text }, { description: nullable(text), parameters: nullable(jsonSchema), strict: nullable(fc.boolean()) });
const namedFunction = object({ type: fc.constant('function'), function: object({ name: text }) });
const tool = rarely(object({ type: fc.constant('function'), function: functionDefinition }), object({ type: fc.constantFrom('custom', 'Function'), custom: object({ name: text }) }));
const toolChoice = fc.oneof(
  oneOf(['none', 'auto', 'required'], ['any', 'tool', '']),
  namedFunction,
  object({ type: fc.constant('allowed_tools'), allowed_tools: object({ mode: fc.constantFrom('auto', 'required'), tools: fc.array(namedFunction, { maxLength: 1 }) }) }),
);
const responseFormat = fc.oneof(
  object({ type: oneOf(['text', 'json_object'], ['xml', 'json']) }),
  object({ type: fc.constant('json_schema'), json_schema: object({ name: text }, { description: nullable(text), schema: nullable(jsonSchema), strict: nullable(fc.boolean()) }) }),
);

const validRequest = object(
  { model: text, messages: fc.array(message, { minLength: 1, maxLength: 3 }) },
  {
    stream: nullable(fc.boolean()),
    stream_options: nullable(object({}, { include_usage: nullable(fc.boolean()), x_vendor: fc.boolean() })),
    max_completion_tokens: nullable(positiveInt),
    max_tokens: nullable(positiveInt),
    temperature: nullable(numberIn(0, 2)),
    top_p: nullable(numberIn(0, 1)),
    n: nullable(positiveInt),
    stop: nullable(fc.oneof(text, fc.array(text, { maxLength: 2 }))),
    presence_penalty: nullable(numberIn(-2, 2)),
    frequency_penalty: nullable(numberIn(-2, 2)),
    seed: nullable(int),
    tools: nullable(fc.array(tool, { maxLength: 2 })),
    tool_choice: nullable(toolChoice),
    parallel_tool_calls: nullable(fc.boolean()),
    functions: rarely(fc.constant(null), fc.array(functionDefinition, { maxLength: 1 })),
    function_call: rarely(fc.constant(null), fc.constantFrom('none', 'auto')),
    response_format: nullable(responseFormat),
    reasoning_effort: nullable(oneOf(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'], ['extreme', 'Low', ''])),
    user: nullable(text),
    safety_identifier: nullable(text),
    x_vendor: fc.jsonValue({ maxDepth: 1 }),
  },
);

/** Values a field may be changed to: wrong types, bounds just crossed, nulls, and some right ones. */
const anyValue = fc.oneof(
  fc.constantFrom(null, undefined, true, '', 'text', 'function', 'user', {}, []),
  fc.constantFrom(-2.5, -2, -1, -0, 0, 0.5, 1, 1.5, 2, 2.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1),
);

/** A valid body with up to two changes anywhere in it. */
const requestLike = mutatedLike(validRequest, anyValue);

/** The JSON body the official SDK sends for `params`. */
async function sentByOpenAI(params: OpenAI.ChatCompletionCreateParams): Promise<unknown> {
  let sent: unknown;
  const client = new OpenAI({
    apiKey: 'sk-sy-test',
    maxRetries: 0,
    fetch: (_url, init) => {
      sent = JSON.parse(String(init?.body));
      return Promise.resolve(Response.json({ id: 'chatcmpl-1', object: 'chat.completion', created: 0, model: 'm', choices: [] }));
    },
  });
  await client.chat.completions.create(params);
  return sent;
}

const user = { role: 'user', content: 'Hi' } as const;
const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
    strict: true,
  },
} as const;

describe('isExactChatRequest', () => {
  it('should accept only bodies the schema accepts and returns unchanged', () => {
    expectExactAsSchema(requestLike, isExactChatRequest, chatRequestSchema);
  });

  it('should leave to the schema every field it declares', () => {
    const body = { model: 'm', messages: [user] };
    for (const key of Object.keys(chatRequestSchema.shape)) {
      const wrong = { ...body, [key]: Symbol(key) };
      expect(chatRequestSchema.safeParse(wrong).success).toBe(false);
      expect(isExactChatRequest(wrong), key).toBe(false);
    }
  });

  it('should accept the bodies the benchmark sends', () => {
    for (const scenario of SCENARIOS.filter(({ id }) => id === 'chat' || id === 'chat-stream')) {
      const call = scenario.call('switchyard', { key: 'sk-sy-bench', simulatorUrl: 'http://127.0.0.1:1' });
      expect(isExactChatRequest(JSON.parse(call?.body ?? 'null')), scenario.id).toBe(true);
    }
  });

  it('should accept what the openai SDK sends for chat, streaming chat and a tool round trip', async () => {
    const bodies = [
      await sentByOpenAI({ model: 'gpt-4o', messages: [{ role: 'system', content: 'Be brief.' }, user] }),
      await sentByOpenAI({
        model: 'gpt-4o',
        messages: [{ role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] }, user],
        stream: true,
        stream_options: { include_usage: true },
        max_completion_tokens: 256,
        temperature: 0.7,
        top_p: 1,
        stop: ['END'],
        seed: 42,
        user: 'user-1',
      }),
      await sentByOpenAI({
        model: 'gpt-4o',
        messages: [
          { role: 'user', content: 'Weather in Oslo?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '{"temperature":4}' },
        ],
        tools: [weatherTool],
        tool_choice: 'auto',
        parallel_tool_calls: false,
        max_tokens: 100,
        n: 1,
        presence_penalty: 0.5,
        frequency_penalty: -0.5,
      }),
      await sentByOpenAI({ model: 'gpt-4o', messages: [user], tools: [weatherTool], tool_choice: { type: 'function', function: { name: 'get_weather' } } }),
    ];
    for (const body of bodies) expect(isExactChatRequest(body), JSON.stringify(body)).toBe(true);
  });

  it('should leave to the schema what it would change, refuse or cannot check cheaply', () => {
    const image = { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] };
    for (const body of [
      null,
      [],
      { model: 'm', messages: [] },
      { model: 'm', messages: [image] },
      { model: 'm', messages: [{ role: 'function', name: 'f', content: '1' }] },
      { model: 'm', messages: [user], tools: [{ type: 'custom', custom: { name: 'grep' } }] },
      { model: 'm', messages: [user], functions: [{ name: 'f' }] },
      JSON.parse('{"model":"m","messages":[{"role":"user","content":"Hi"}],"__proto__":{"x":1}}'),
      Object.assign(Object.create(null), { model: 'm', messages: [user] }),
    ]) {
      expect(isExactChatRequest(body), JSON.stringify(body)).toBe(false);
    }
  });

  it('should keep the errors requestToCanonical reports for bodies the schema refuses', () => {
    const cases: [unknown, string, string | undefined][] = [
      [{ model: 'm', messages: [] }, "Invalid value for 'messages': Too small: expected array to have >=1 items", 'messages'],
      [{ messages: [user] }, "Invalid value for 'model': Invalid input: expected string, received undefined", 'model'],
      [{ model: 'm', messages: [user], temperature: 2.5 }, "Invalid value for 'temperature': Too big: expected number to be <=2", 'temperature'],
      [{ model: 'm', messages: [user], max_tokens: 0 }, "Invalid value for 'max_tokens': Too small: expected number to be >=1", 'max_tokens'],
      [{ model: 'm', messages: [user], n: 1.5 }, "Invalid value for 'n': Invalid input: expected int, received number", 'n'],
      [{ model: 'm', messages: [user], stream: 'yes' }, "Invalid value for 'stream': Invalid input: expected boolean, received string", 'stream'],
      [{ model: 'm', messages: [user], tool_choice: 'sometimes' }, "Invalid value for 'tool_choice': Invalid input", 'tool_choice'],
      [
        { model: 'm', messages: [user, { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] }] },
        "Invalid value for 'messages[1].tool_calls[0].id': Invalid input: expected string, received undefined",
        'messages[1].tool_calls[0].id',
      ],
      ['hello', 'Invalid value for Request body: Invalid input: expected object, received string', undefined],
    ];
    for (const [body, message, param] of cases) {
      expect(isExactChatRequest(body)).toBe(false);
      const error = caught(() => requestToCanonical(body, {}));
      expect([error.kind, error.status, error.message, error.param]).toEqual(['invalid_request', 400, message, param]);
    }
  });
});
