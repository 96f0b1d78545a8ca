import {
  arrayOf,
  atLeast,
  between,
  checkedParse,
  isBoolean,
  isFiniteNumber,
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
import { generateContentRequestSchema, snakeCaseAliases, type GenerateContentRequest } from './schema.ts';

/**
 * `camelObject`'s loose object, which must list every key of its schema: one missing here
 * would pass unchecked as an unknown key. A snake_case alias of a known key is left to zod,
 * which renames it in a copy (or keeps it beside its camelCase spelling).
 */
function camelObject(required: Record<string, Check>, optional: Record<string, Check>): Check {
  const loose = looseObject(required, optional);
  const aliases = new Set(snakeCaseAliases([...Object.keys(required), ...Object.keys(optional)]).map(([alias]) => alias));
  if (aliases.size === 0) return loose;
  // Going through the body's few keys costs less than asking `in` for each alias, which took
  // half the check's time.
  return (value) => {
    if (!loose(value)) return false;
    for (const key in value as object) if (aliases.has(key)) return false;
    return true;
  };
}

const isName: Check = (value) => typeof value === 'string' && value.length > 0;
const strings = arrayOf(isString);

const functionCall = camelObject({ name: isString }, { id: nullish(isString), args: nullish(isRecordOfUnknown) });

const functionResponse = camelObject(
  { name: isString },
  // Media in a function response is left to zod with the media parts.
  { id: nullish(isString), response: nullish(isRecordOfUnknown), parts: nullish(leftToZod) },
);

// Media (inline data, files) and code execution parts are left to zod: seldom in a client's
// turns, and each has camelCase keys of its own that may arrive in snake_case.
const part = camelObject(
  {},
  {
    text: nullish(isString),
    thought: nullish(isBoolean),
    thoughtSignature: nullish(isString),
    inlineData: nullish(leftToZod),
    fileData: nullish(leftToZod),
    functionCall: nullish(functionCall),
    functionResponse: nullish(functionResponse),
    executableCode: nullish(leftToZod),
    codeExecutionResult: nullish(leftToZod),
  },
);

// `parts` as one object, which the schema wraps in a list, is left to zod with it.
const content = camelObject({}, { role: nullish(isString), parts: nullish(arrayOf(part)) });

const functionDeclaration = camelObject(
  { name: isName },
  { description: nullish(isString), parameters: nullish(isRecordOfUnknown), parametersJsonSchema: nullish(isRecordOfUnknown) },
);

// Hosted tools (googleSearch, codeExecution, …) are unknown keys to the schema and pass as such.
const tool = camelObject({}, { functionDeclarations: nullish(arrayOf(functionDeclaration)) });

const functionCallingConfig = camelObject(
  {},
  { mode: nullish(literal('MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED')), allowedFunctionNames: nullish(strings) },
);

const toolConfig = camelObject({}, { functionCallingConfig: nullish(functionCallingConfig) });

const thinkingConfig = camelObject(
  {},
  {
    thinkingBudget: nullish(isInt),
    includeThoughts: nullish(isBoolean),
    thinkingLevel: nullish(literal('THINKING_LEVEL_UNSPECIFIED', 'MINIMAL', 'LOW', 'MEDIUM', 'HIGH')),
  },
);

const generationConfig = camelObject(
  {},
  {
    temperature: nullish(between(0, 2)),
    topP: nullish(between(0, 1)),
    topK: nullish(atLeast(0)),
    candidateCount: nullish(isPositiveInt),
    maxOutputTokens: nullish(isPositiveInt),
    stopSequences: nullish(strings),
    presencePenalty: nullish(isFiniteNumber),
    frequencyPenalty: nullish(isFiniteNumber),
    seed: nullish(isInt),
    responseMimeType: nullish(isString),
    responseSchema: nullish(isRecordOfUnknown),
    responseJsonSchema: nullish(isRecordOfUnknown),
    responseModalities: nullish(strings),
    thinkingConfig: nullish(thinkingConfig),
  },
);

/** A test holds these keys and those of `generateContentRequestSchema`'s shape together. */
const request = camelObject(
  { contents: arrayOf(content, 1) },
  { systemInstruction: nullish(content), tools: nullish(arrayOf(tool)), toolConfig: nullish(toolConfig), generationConfig: nullish(generationConfig) },
);

/**
 * True when `value` is a body `generateContentRequestSchema` accepts and would return
 * unchanged: the common shapes (text and function-calling conversations, system instruction,
 * generation settings, function declarations), each bound of the schema checked, camelCase
 * keys only; anything else is false and left to the schema. Its parse copies the whole body
 * (about 2% of a generate-content request's CPU in the benchmark's profiles). The schema stays
 * the definition; a property test holds the two together. What JSON cannot make (named
 * properties on arrays, symbol keys, accessors) is not looked for.
 */
export function isExactGenerateContentRequest(value: unknown): value is GenerateContentRequest {
  return request(value);
}

/** `generateContentRequestSchema.safeParse`, without its parse and copy for a body the check vouches for. */
export const parseGenerateContentRequest = checkedParse(generateContentRequestSchema, isExactGenerateContentRequest);
