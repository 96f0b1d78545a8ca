import { FunctionCallingConfigMode, GoogleGenAI, ThinkingLevel, Type, type GenerateContentParameters } from '@google/genai';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { caught, expectExactAsSchema, mutatedLike, nullable, numberIn, object, rarely, text } from '../testing/test-support.ts';
import { SCENARIOS } from '../../../../bench/lib/scenarios.ts';
import { isExactGenerateContentRequest } from './is-generate-content-request.ts';
import { requestToCanonical } from './request.ts';
import { generateContentRequestSchema } from './schema.ts';

const notSafeInt = [0.5, Number.MAX_SAFE_INTEGER + 1, -Number.MAX_SAFE_INTEGER - 1, Number.NaN, Number.POSITIVE_INFINITY] as const;
const positiveInt = rarely(fc.oneof(fc.integer({ min: 1, max: 4_096 }), fc.constant(Number.MAX_SAFE_INTEGER)), fc.constantFrom(0, -1, -0, ...notSafeInt, null));
const int = rarely(fc.oneof(fc.integer(), fc.constantFrom(-1, -0, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)), fc.constantFrom(...notSafeInt, null));
const anyNumber = rarely(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(Number.NaN, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY, null));
/** One of `valid`, now and then a near miss. */
const oneOf = (valid: string[], wrong: string[]) => rarely(fc.constantFrom(...valid), fc.constantFrom(...wrong));
const json = fc.jsonValue({ maxDepth: 1 });

const jsonSchema = fc.oneof(
  fc.constant({ type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] }),
  fc.dictionary(text, json, { maxKeys: 2, noNullPrototype: true }),
);
const functionCall = object({ name: text }, { id: nullable(text), args: nullable(jsonSchema) });
const functionResponse = object(
  { name: text },
  { id: nullable(text), response: nullable(jsonSchema), parts: nullable(fc.array(object({ inlineData: object({ mimeType: text, data: text }) }), { maxLength: 1 })) },
);
const blob = object({ mimeType: text, data: text });
const part = fc.oneof(
  { arbitrary: object({ text }, { thought: nullable(fc.boolean()), thoughtSignature: nullable(text) }), weight: 4 },
  object({ functionCall }, { thoughtSignature: nullable(text) }),
  object({ functionResponse }),
  object({ inlineData: blob }),
  object({ fileData: object({ fileUri: text }, { mimeType: nullable(text) }) }),
  object({ executableCode: object({ code: text }, { language: nullable(text) }) }),
  object({ codeExecutionResult: object({}, { outcome: nullable(text), output: nullable(text) }) }),
  object({ function_call: functionCall }),
  object({ inline_data: object({ mime_type: text, data: text }) }),
  object({ videoMetadata: json }),
);
const content = object(
  {},
  {
    role: nullable(oneOf(['user', 'model'], ['function', 'system', ''])),
    // A single part, not a list, now and then, as in Google's REST samples.
    parts: nullable(rarely(fc.array(part, { maxLength: 3 }), part)),
  },
);

const functionDeclaration = object(
  { name: rarely(fc.string({ minLength: 1, maxLength: 4 }), fc.constant('')) },
  { description: nullable(text), parameters: nullable(jsonSchema), parametersJsonSchema: nullable(jsonSchema), parameters_json_schema: jsonSchema },
);
const tool = rarely(
  object({}, { functionDeclarations: nullable(fc.array(functionDeclaration, { maxLength: 2 })) }),
  fc.oneof(object({ googleSearch: fc.constant({}) }), object({ function_declarations: fc.array(functionDeclaration, { maxLength: 1 }) })),
);
const toolConfig = object(
  {},
  {
    functionCallingConfig: nullable(
      object(
        {},
        {
          mode: nullable(oneOf(['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED'], ['auto', 'REQUIRED', ''])),
          allowedFunctionNames: nullable(fc.array(text, { maxLength: 2 })),
          allowed_function_names: fc.array(text, { maxLength: 1 }),
        },
      ),
    ),
    function_calling_config: object({}, { mode: fc.constant('ANY') }),
  },
);
const thinkingConfig = object(
  {},
  {
    thinkingBudget: nullable(int),
    includeThoughts: nullable(fc.boolean()),
    thinkingLevel: nullable(oneOf(['THINKING_LEVEL_UNSPECIFIED', 'MINIMAL', 'LOW', 'MEDIUM', 'HIGH'], ['low', 'MAX', ''])),
    thinking_budget: int,
  },
);
const generationConfig = object(
  {},
  {
    temperature: nullable(numberIn(0, 2)),
    topP: nullable(numberIn(0, 1)),
    topK: nullable(numberIn(0, 100)),
    candidateCount: nullable(positiveInt),
    maxOutputTokens: nullable(positiveInt),
    stopSequences: nullable(fc.array(text, { maxLength: 2 })),
    presencePenalty: nullable(anyNumber),
    frequencyPenalty: nullable(anyNumber),
    seed: nullable(int),
    responseMimeType: nullable(oneOf(['text/plain', 'application/json'], [''])),
    responseSchema: nullable(jsonSchema),
    responseJsonSchema: nullable(jsonSchema),
    responseModalities: nullable(fc.array(oneOf(['TEXT', 'IMAGE'], ['']), { maxLength: 2 })),
    thinkingConfig: nullable(thinkingConfig),
    imageConfig: json,
    max_output_tokens: positiveInt,
  },
);

const validRequest = object(
  // An extension beside `contents`: `mutatedLike` needs a key left to change once that is deleted.
  { contents: fc.array(content, { maxLength: 3 }), safetySettings: json },
  {
    systemInstruction: nullable(content),
    tools: nullable(fc.array(tool, { maxLength: 2 })),
    toolConfig: nullable(toolConfig),
    generationConfig: nullable(generationConfig),
    system_instruction: content,
  },
);

/** Values a field may be changed to: wrong types, bounds just crossed, nulls, and some right ones. */
const anyValue = fc.oneof(
  fc.constantFrom(null, undefined, true, '', 'text', 'user', 'model', 'AUTO', {}, []),
  fc.constantFrom(-1, -0, 0, 0.5, 1, 1.5, 2, 2.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1),
);

/** A valid body with up to two changes anywhere in it. */
const requestLike = mutatedLike(validRequest, anyValue);

/** The JSON body the official SDK sends for `params`. */
async function sentByGoogle(params: GenerateContentParameters): Promise<unknown> {
  let sent: unknown;
  vi.stubGlobal('fetch', (_input: unknown, init?: RequestInit) => {
    sent = JSON.parse(String(init?.body));
    return Promise.resolve(Response.json({ candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }] }));
  });
  await new GoogleGenAI({ apiKey: 'sk-sy-test', httpOptions: { baseUrl: 'http://switchyard.test' } }).models.generateContent(params);
  return sent;
}

const contents = [{ role: 'user', parts: [{ text: 'Hi' }] }];
const weatherTool = {
  functionDeclarations: [{ name: 'get_weather', description: 'Weather for a city', parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] } }],
};

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('isExactGenerateContentRequest', () => {
  it('should accept only bodies the schema accepts and returns unchanged', () => {
    expectExactAsSchema(requestLike, isExactGenerateContentRequest, generateContentRequestSchema);
  });

  it('should leave to the schema every field it declares', () => {
    for (const key of Object.keys(generateContentRequestSchema.out.shape)) {
      const wrong = { contents, [key]: Symbol(key) };
      expect(generateContentRequestSchema.safeParse(wrong).success).toBe(false);
      expect(isExactGenerateContentRequest(wrong), key).toBe(false);
    }
  });

  it('should accept the bodies the benchmark sends', () => {
    for (const scenario of SCENARIOS.filter(({ id }) => id === 'gemini>chat' || id === 'gemini-stream')) {
      const call = scenario.call('switchyard', { key: 'sk-sy-bench', simulatorUrl: 'http://127.0.0.1:1' });
      expect(isExactGenerateContentRequest(JSON.parse(call?.body ?? 'null')), scenario.id).toBe(true);
    }
  });

  it('should accept what the @google/genai SDK sends for a turn, generation settings and a function call round trip', async () => {
    const bodies = [
      await sentByGoogle({ model: 'gemini-2.5-flash', contents: 'Hi' }),
      await sentByGoogle({
        model: 'gemini-2.5-flash',
        contents: 'Weather in Oslo?',
        config: {
          systemInstruction: 'Answer tersely.',
          temperature: 0.3,
          topP: 0.9,
          topK: 40,
          candidateCount: 1,
          maxOutputTokens: 256,
          stopSequences: ['END'],
          presencePenalty: 0.5,
          frequencyPenalty: -0.5,
          seed: 42,
          responseMimeType: 'application/json',
          responseJsonSchema: { type: 'object', properties: { answer: { type: 'string' } } },
          thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
          tools: [weatherTool, { googleSearch: {} }],
          toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['get_weather'] } },
        },
      }),
      await sentByGoogle({
        model: 'gemini-2.5-flash',
        contents: [
          { role: 'user', parts: [{ text: 'Weather in Oslo?' }] },
          { role: 'model', parts: [{ text: 'Checking.', thought: true, thoughtSignature: 'EqQB' }, { functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Oslo' } } }] },
          { role: 'user', parts: [{ functionResponse: { id: 'call_1', name: 'get_weather', response: { temperature: 4 } } }] },
        ],
        config: { tools: [weatherTool], thinkingConfig: { thinkingLevel: ThinkingLevel.LOW } },
      }),
    ];
    for (const body of bodies) expect(isExactGenerateContentRequest(body), JSON.stringify(body)).toBe(true);
  });

  it('should hold each bound and type as the schema does', () => {
    const config = (generationConfig: Record<string, unknown>) => ({ contents, generationConfig });
    const cases: [unknown, boolean][] = [
      [config({ temperature: 0, topP: 0, topK: 0, candidateCount: 1, maxOutputTokens: 1 }), true],
      [config({ temperature: 2, topP: 1, topK: 1e9, candidateCount: Number.MAX_SAFE_INTEGER, presencePenalty: -3, frequencyPenalty: 3 }), true],
      [config({ temperature: -Number.MIN_VALUE }), false],
      [config({ temperature: 2 + 2 * Number.EPSILON }), false],
      [config({ temperature: '1' }), false],
      [config({ topP: 1 + Number.EPSILON }), false],
      [config({ topP: -0.1 }), false],
      [config({ topK: -Number.MIN_VALUE }), false],
      [config({ topK: Number.POSITIVE_INFINITY }), false],
      [config({ candidateCount: 0 }), false],
      [config({ candidateCount: 1.5 }), false],
      [config({ maxOutputTokens: 0 }), false],
      [config({ maxOutputTokens: Number.MAX_SAFE_INTEGER + 1 }), false],
      [config({ presencePenalty: Number.NaN }), false],
      [config({ frequencyPenalty: Number.NEGATIVE_INFINITY }), false],
      [config({ seed: -1 }), true],
      [config({ seed: 0.5 }), false],
      [config({ stopSequences: 'END' }), false],
      [config({ stopSequences: [1] }), false],
      [config({ responseMimeType: 1 }), false],
      [config({ responseSchema: [] }), false],
      [config({ responseModalities: ['TEXT', null] }), false],
      [config({ thinkingConfig: { thinkingBudget: -1 } }), true],
      [config({ thinkingConfig: { thinkingBudget: 1.5 } }), false],
      [config({ thinkingConfig: { includeThoughts: 'yes' } }), false],
      [config({ thinkingConfig: { thinkingLevel: 'low' } }), false],
      [{ contents: [] }, false],
      [{ contents: contents[0] }, false],
      [{ contents: [{ role: 1, parts: [{ text: 'Hi' }] }] }, false],
      [{ contents: [{ parts: [{ text: 1 }] }] }, false],
      [{ contents: [{ parts: [{ text: 'Hi', thought: 'yes' }] }] }, false],
      [{ contents: [{ parts: [{ functionCall: { args: {} } }] }] }, false],
      [{ contents: [{ parts: [{ functionCall: { name: 'f', args: 'x' } }] }] }, false],
      [{ contents: [{ parts: [{ functionResponse: { name: 'f', response: [] } }] }] }, false],
      [{ contents, systemInstruction: 'Be brief.' }, false],
      [{ contents, tools: [{ functionDeclarations: [{ name: '' }] }] }, false],
      [{ contents, tools: { functionDeclarations: [] } }, false],
      [{ contents, toolConfig: { functionCallingConfig: { mode: 'REQUIRED' } } }, false],
      [{ contents, toolConfig: { functionCallingConfig: { allowedFunctionNames: 'f' } } }, false],
    ];
    for (const [body, valid] of cases) {
      const parsed = generateContentRequestSchema.safeParse(body);
      expect([isExactGenerateContentRequest(body), parsed.success], JSON.stringify(body)).toEqual([valid, valid]);
      if (valid) expect(parsed.data).toStrictEqual(body);
    }
  });

  it('should leave to the schema what it would change or cannot check cheaply', () => {
    const image = { inlineData: { mimeType: 'image/png', data: 'iVBO' } };
    for (const body of [
      { contents: [{ role: 'user', parts: [image] }] },
      { contents: [{ role: 'user', parts: [{ fileData: { fileUri: 'gs://b/a.pdf' } }] }] },
      { contents: [{ role: 'user', parts: { text: 'Hi' } }] },
      { contents: [{ role: 'user', parts: [{ functionResponse: { name: 'f', response: {}, parts: [image] } }] }] },
      { contents: [{ role: 'model', parts: [{ executableCode: { code: 'print(1)' } }, { codeExecutionResult: { output: '1' } }] }] },
      { contents, system_instruction: { parts: [{ text: 'Be brief.' }] } },
      { contents, generationConfig: { max_output_tokens: 64 } },
      { contents, generationConfig: { maxOutputTokens: 64, max_output_tokens: 64 } },
      { contents: [{ parts: [{ function_call: { name: 'f' } }] }] },
      { contents, tools: [{ function_declarations: [{ name: 'f' }] }] },
      JSON.parse('{"contents":[{"parts":[{"text":"Hi"}]}],"__proto__":{"x":1}}'),
      Object.assign(Object.create(null), { contents }),
    ]) {
      expect(generateContentRequestSchema.safeParse(body).success, JSON.stringify(body)).toBe(true);
      expect(isExactGenerateContentRequest(body), JSON.stringify(body)).toBe(false);
    }
  });

  it('should keep the errors requestToCanonical reports for bodies the schema refuses', () => {
    const context = { model: 'gemini-2.5-flash', stream: false };
    const cases: [unknown, string, string | undefined][] = [
      [{ contents: [] }, "Invalid value for 'contents': Too small: expected array to have >=1 items", 'contents'],
      [{ contents, generationConfig: { temperature: 2.5 } }, "Invalid value for 'generationConfig.temperature': Too big: expected number to be <=2", 'generationConfig.temperature'],
      [{ contents, generationConfig: { candidateCount: 1.5 } }, "Invalid value for 'generationConfig.candidateCount': Invalid input: expected int, received number", 'generationConfig.candidateCount'],
      [
        { contents: [{ parts: [{ functionCall: { args: {} } }] }] },
        "Invalid value for 'contents[0].parts[0].functionCall.name': Invalid input: expected string, received undefined",
        'contents[0].parts[0].functionCall.name',
      ],
      ['hello', 'Invalid value for Request body: Invalid input: expected object, received string', undefined],
    ];
    for (const [body, message, param] of cases) {
      expect(isExactGenerateContentRequest(body)).toBe(false);
      const error = caught(() => requestToCanonical(body, context));
      expect([error.kind, error.status, error.message, error.param]).toEqual(['invalid_request', 400, message, param]);
    }
  });
});
