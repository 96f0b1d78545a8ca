import Anthropic from '@anthropic-ai/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caught, expectExactAsSchema, mutatedLike, nullable, numberIn, object, OMITTED, rarely, text } from '../testing/test-support.ts';
import { SCENARIOS } from '../../../../bench/lib/scenarios.ts';
import { isExactMessagesRequest } from './is-messages-request.ts';
import { requestToCanonical } from './request.ts';
import { messagesRequestSchema } from './schema.ts';

const intFrom = (min: number) =>
  rarely(
    fc.oneof(fc.integer({ min, max: 4_096 }), fc.constantFrom(min, Number.MAX_SAFE_INTEGER, -0)),
    fc.constantFrom(min - 1, 0.5, Number.MAX_SAFE_INTEGER + 1, Number.NaN, null),
  );
/** One of `valid`, now and then a near miss. */
const oneOf = (valid: string[], wrong: string[]) => rarely(fc.constantFrom(...valid), fc.constantFrom(...wrong));

const textBlock = object({ type: fc.constant('text'), text }, { cache_control: fc.constant({ type: 'ephemeral' }), citations: fc.constant(null) });
const imageBlock = object({ type: fc.constant('image'), source: object({ type: fc.constant('base64'), media_type: fc.constant('image/png'), data: text }) });
const unknownBlock = object({ type: fc.constantFrom('server_tool_use', 'Text', 'search_result'), text });
const textContent = fc.oneof(text, fc.array(rarely(textBlock, fc.oneof(imageBlock, unknownBlock)), { maxLength: 2 }));
const json = fc.jsonValue({ maxDepth: 1 });
const block = fc.oneof(
  { arbitrary: textBlock, weight: 3 },
  object({ type: fc.constant('tool_use'), id: text, name: text, input: rarely(json, fc.constantFrom(undefined, OMITTED)) }),
  object({ type: fc.constant('tool_result'), tool_use_id: text }, { content: nullable(textContent), is_error: nullable(fc.boolean()) }),
  object({ type: fc.constant('thinking'), thinking: text, signature: text }),
  object({ type: fc.constant('redacted_thinking'), data: text }),
  imageBlock,
  unknownBlock,
);
const message = object({ role: oneOf(['user', 'assistant'], ['system', 'tool']), content: fc.oneof(text, fc.array(block, { maxLength: 3 })) });

const jsonSchema = fc.oneof(
  fc.constant({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
  fc.dictionary(text, json, { maxKeys: 2, noNullPrototype: true }),
);
const tool = rarely(
  object(
    { name: text },
    {
      type: nullable(fc.constant('custom')),
      description: nullable(text),
      input_schema: nullable(jsonSchema),
      strict: nullable(fc.boolean()),
      cache_control: fc.constant({ type: 'ephemeral' }),
    },
  ),
  object({ type: fc.constantFrom('web_search_20250305', 'bash_20250124'), name: text }, { max_uses: fc.integer({ min: 1, max: 5 }) }),
);
const parallel = { disable_parallel_tool_use: nullable(fc.boolean()) };
const toolChoice = fc.oneof(
  object({ type: oneOf(['auto', 'any'], ['required', 'function']) }, parallel),
  object({ type: fc.constant('tool'), name: text }, parallel),
  object({ type: fc.constant('none') }),
);
const display = { display: nullable(fc.constantFrom('summarized', 'omitted')) };
const thinking = fc.oneof(
  object({ type: fc.constant('enabled'), budget_tokens: intFrom(0) }, display),
  object({ type: oneOf(['adaptive'], ['auto']) }, display),
  object({ type: fc.constant('disabled') }),
);
const outputConfig = object(
  {},
  {
    effort: nullable(oneOf(['low', 'medium', 'high', 'xhigh', 'max'], ['minimal', 'none', 'High'])),
    format: nullable(object({ type: oneOf(['json_schema'], ['json_object']), schema: jsonSchema })),
  },
);

const validRequest = object(
  { model: text, messages: fc.array(message, { maxLength: 3 }), max_tokens: intFrom(1) },
  {
    // `.optional()` fields refuse null, which clients send for absent values.
    system: nullable(textContent),
    temperature: numberIn(0, 1),
    top_p: numberIn(0, 1),
    top_k: intFrom(0),
    stop_sequences: nullable(fc.array(text, { maxLength: 2 })),
    tools: nullable(fc.array(tool, { maxLength: 2 })),
    tool_choice: nullable(toolChoice),
    thinking: nullable(thinking),
    output_config: nullable(outputConfig),
    metadata: nullable(object({}, { user_id: nullable(text) })),
    stream: nullable(fc.boolean()),
    service_tier: json,
  },
);

/** Values a field may be changed to: wrong types, bounds just crossed, nulls, and some right ones. */
const anyValue = fc.oneof(
  fc.constantFrom(null, undefined, true, '', 'text', 'tool_use', 'user', {}, []),
  fc.constantFrom(-1, -0, 0, 0.5, 1, 1.5, 2, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1),
);

/** A valid body with up to two changes anywhere in it. */
const requestLike = mutatedLike(validRequest, anyValue);

/** The JSON body the official SDK sends for `params`. */
async function sentByAnthropic(params: Anthropic.MessageCreateParams): Promise<unknown> {
  let sent: unknown;
  const client = new Anthropic({
    apiKey: 'sk-ant-test',
    maxRetries: 0,
    fetch: (_url, init) => {
      sent = JSON.parse(String(init?.body));
      return Promise.resolve(
        Response.json({
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'm',
          content: [],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
      );
    },
  });
  await client.messages.create(params);
  return sent;
}

const user = { role: 'user', content: 'Hi' } as const;
const base = { model: 'm', max_tokens: 10, messages: [user] };
const weatherTool: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('isExactMessagesRequest', () => {
  it('should accept only bodies the schema accepts and returns unchanged', () => {
    expectExactAsSchema(requestLike, isExactMessagesRequest, messagesRequestSchema);
  });

  it('should leave to the schema every field it declares', () => {
    for (const key of Object.keys(messagesRequestSchema.shape)) {
      const wrong = { ...base, [key]: Symbol(key) };
      expect(messagesRequestSchema.safeParse(wrong).success).toBe(false);
      expect(isExactMessagesRequest(wrong), key).toBe(false);
    }
  });

  it('should accept the body the benchmark sends', () => {
    const call = SCENARIOS.find(({ id }) => id === 'messages>chat-stream')?.call('switchyard', { key: 'sk-sy-bench', simulatorUrl: 'http://127.0.0.1:1' });
    expect(isExactMessagesRequest(JSON.parse(call?.body ?? 'null'))).toBe(true);
  });

  it('should accept what the Anthropic SDK sends for a message, a stream, thinking and a tool round trip', async () => {
    const bodies = [
      await sentByAnthropic({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [user] }),
      await sentByAnthropic({
        model: 'claude-sonnet-4-5',
        max_tokens: 1024,
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
        messages: [user],
        stream: true,
        stop_sequences: ['END'],
        metadata: { user_id: 'user-1' },
        output_config: { effort: 'high' },
        service_tier: 'auto',
      }),
      await sentByAnthropic({
        model: 'claude-sonnet-4-5',
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 2048 },
        system: 'Use the tools.',
        messages: [
          { role: 'user', content: 'Weather in Oslo?' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'Look it up.', signature: 'EqQB' },
              { type: 'text', text: 'Checking.' },
              { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '4 °C' }] },
        ],
        tools: [weatherTool],
        tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      }),
      await sentByAnthropic({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [user], tools: [weatherTool], tool_choice: { type: 'tool', name: 'get_weather' } }),
    ];
    for (const body of bodies) expect(isExactMessagesRequest(body), JSON.stringify(body)).toBe(true);
  });

  it('should leave to the schema what it would change, refuse or cannot check cheaply', () => {
    const image = { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } };
    for (const body of [
      null,
      [],
      { ...base, messages: [{ role: 'user', content: [image] }] },
      { ...base, messages: [{ role: 'user', content: [{ type: 'search_result', source: 'x' }] }] },
      { ...base, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [image] }] }] },
      { ...base, tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] },
      { ...base, system: undefined },
      { ...base, temperature: null },
      JSON.parse('{"model":"m","max_tokens":10,"messages":[],"__proto__":{"x":1}}'),
      Object.assign(Object.create(null), base),
    ]) {
      expect(isExactMessagesRequest(body), JSON.stringify(body)).toBe(false);
    }
  });

  it('should keep the errors requestToCanonical reports for bodies the schema refuses', () => {
    const cases: [unknown, string, string | undefined][] = [
      [{ model: 'm', messages: [user] }, "Invalid value for 'max_tokens': Invalid input: expected number, received undefined", 'max_tokens'],
      [{ ...base, max_tokens: 0 }, "Invalid value for 'max_tokens': Too small: expected number to be >=1", 'max_tokens'],
      [{ ...base, temperature: 1.5 }, "Invalid value for 'temperature': Too big: expected number to be <=1", 'temperature'],
      [{ ...base, temperature: null }, "Invalid value for 'temperature': Invalid input: expected number, received null", 'temperature'],
      [{ ...base, top_k: 1.5 }, "Invalid value for 'top_k': Invalid input: expected int, received number", 'top_k'],
      [{ ...base, messages: [{ role: 'system', content: 'x' }] }, 'Invalid value for \'messages[0].role\': Invalid option: expected one of "user"|"assistant"', 'messages[0].role'],
      [
        { ...base, messages: [user, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f' }] }] },
        "Invalid value for 'messages[1].content[0].input': Invalid input: expected nonoptional, received undefined",
        'messages[1].content[0].input',
      ],
      [
        { ...base, messages: [{ role: 'user', content: [{ type: 'text', text: 1 }] }] },
        "Invalid value for 'messages[0].content[0].text': Invalid input: expected string, received number",
        'messages[0].content[0].text',
      ],
      [{ ...base, tool_choice: { type: 'sometimes' } }, "Invalid value for 'tool_choice.type': Invalid discriminator value. Expected 'auto' | 'any' | 'tool' | 'none'", 'tool_choice.type'],
      [{ ...base, thinking: { type: 'enabled', budget_tokens: -1 } }, "Invalid value for 'thinking.budget_tokens': Too small: expected number to be >=0", 'thinking.budget_tokens'],
      [42, 'Invalid value for Request body: Invalid input: expected object, received number', undefined],
    ];
    for (const [body, message, param] of cases) {
      expect(isExactMessagesRequest(body)).toBe(false);
      const error = caught(() => requestToCanonical(body, {}));
      expect([error.kind, error.status, error.message, error.param]).toEqual(['invalid_request', 400, message, param]);
    }
  });
});
