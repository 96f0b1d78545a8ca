import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI, ThinkingLevel, type Content, type GenerateContentResponse, type Part } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { Matrix } from './support/matrix.ts';
import { MODEL_FOR_PROTOCOL, startTopology, TEST_KEY, type Topology, type TopologyKind } from './support/topology.ts';
import {
  generationSettings,
  lastUserParts,
  upstreamRequestWith,
  upstreamRequestsWith,
  type Upstream,
} from './support/upstream-log.ts';

/**
 * Features across the 4 × 4 matrix (official SDK client × upstream protocol): images, reasoning
 * and signatures, JSON output, stop sequences, max tokens, usage details, generated images and
 * streamed parallel tool calls. Each cell reads the request the simulator received
 * (GET /_sim/requests) to check the knob arrived in the upstream's own shape, and the answer in
 * the client's own shape. Policies asserted here are the ones the format READMEs document.
 */

const UPSTREAMS = Object.keys(MODEL_FOR_PROTOCOL) as Upstream[];

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const PNG_DATA_URL = `data:image/png;base64,${PNG}`;
/** An image URL whose type the extension tells. */
const IMAGE_URL = 'https://images.example.test/cat.png';
/** An image URL whose type nothing tells: generate-content cannot send it (Switchyard does not fetch). */
const OPAQUE_URL = 'https://images.example.test/render?id=7';

const weatherSchema = {
  type: 'object' as const,
  properties: { city: { type: 'string', description: 'City name' } },
  required: ['city'],
};
const reportSchema = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number' } },
  required: ['city', 'celsius'],
  additionalProperties: false,
};
/** What the simulator answers for reportSchema: its sample of the schema. */
const REPORT_SAMPLE = { city: 'sample', celsius: 1 };

type Json = Record<string, unknown>;

let counter = 0;
/** A unique marker for one cell, put in the user text so its upstream request can be found. */
function marker(label: string): string {
  counter += 1;
  return `${label}${counter}x`;
}

function words(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? 0 : trimmed.split(/\s+/).length;
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  let outcome: { error: unknown } | undefined;
  try {
    await promise;
  } catch (error) {
    outcome = { error };
  }
  if (outcome === undefined) throw new Error('expected the call to fail');
  return outcome.error;
}

function arrayOf(value: unknown): Json[] {
  return Array.isArray(value) ? (value as Json[]) : [];
}

function messageText(message: Anthropic.Message): string {
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

function genaiText(response: GenerateContentResponse): string {
  return (response.candidates?.[0]?.content?.parts ?? []).map((part) => (part.thought === true ? '' : (part.text ?? ''))).join('');
}

function genaiWarning(response: GenerateContentResponse): string {
  return response.sdkHttpResponse?.headers?.['x-switchyard-warning'] ?? '';
}

/** Every part of a genai stream, in order, with the last chunk's usage and finish reason. */
async function collectGenai(stream: AsyncGenerator<GenerateContentResponse>): Promise<{
  parts: Part[];
  usage: GenerateContentResponse['usageMetadata'];
  finish: string | undefined;
  warning: string;
}> {
  const parts: Part[] = [];
  let usage: GenerateContentResponse['usageMetadata'];
  let finish: string | undefined;
  let warning = '';
  for await (const chunk of stream) {
    parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    if (chunk.usageMetadata !== undefined) usage = chunk.usageMetadata;
    finish = chunk.candidates?.[0]?.finishReason ?? finish;
    warning ||= genaiWarning(chunk);
  }
  return { parts, usage, finish, warning };
}

function partsText(parts: Part[]): string {
  return parts.map((part) => (part.thought === true ? '' : (part.text ?? ''))).join('');
}

/** Chat stream collector: text, reasoning_content, tool calls by index, finish, usage. */
async function collectChat(stream: AsyncIterable<OpenAI.ChatCompletionChunk>): Promise<{
  text: string;
  reasoning: string;
  calls: Map<number, { id: string; name: string; args: string; fragments: number }>;
  finish: string | null | undefined;
  usage: OpenAI.CompletionUsage | undefined;
}> {
  let text = '';
  let reasoning = '';
  const calls = new Map<number, { id: string; name: string; args: string; fragments: number }>();
  let finish: string | null | undefined;
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta as (OpenAI.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string }) | undefined;
    text += delta?.content ?? '';
    reasoning += delta?.reasoning_content ?? '';
    for (const call of delta?.tool_calls ?? []) {
      const entry = calls.get(call.index) ?? { id: '', name: '', args: '', fragments: 0 };
      entry.id += call.id ?? '';
      entry.name += call.function?.name ?? '';
      if ((call.function?.arguments ?? '') !== '') entry.fragments += 1;
      entry.args += call.function?.arguments ?? '';
      calls.set(call.index, entry);
    }
    finish = chunk.choices[0]?.finish_reason ?? finish;
    if (chunk.usage) usage = chunk.usage;
  }
  return { text, reasoning, calls, finish, usage };
}

/** The tool calls of the last assistant turn and the results after it, in the upstream's shape. */
function toolLoop(upstream: Upstream, body: Json): { calls: Array<{ id: string; name: string }>; results: Array<{ id: string; text: string }> } {
  switch (upstream) {
    case 'chat-completions': {
      const messages = arrayOf(body.messages);
      const assistant = messages.findLast((message) => message.role === 'assistant');
      const calls = arrayOf(assistant?.tool_calls).map((call) => ({ id: String(call.id), name: String((call.function as Json).name) }));
      const results = messages.filter((message) => message.role === 'tool').map((message) => ({ id: String(message.tool_call_id), text: JSON.stringify(message.content) }));
      return { calls, results };
    }
    case 'responses': {
      const items = arrayOf(body.input);
      const calls = items.filter((item) => item.type === 'function_call').map((item) => ({ id: String(item.call_id), name: String(item.name) }));
      const results = items.filter((item) => item.type === 'function_call_output').map((item) => ({ id: String(item.call_id), text: JSON.stringify(item.output) }));
      return { calls, results };
    }
    case 'messages': {
      const messages = arrayOf(body.messages);
      const assistant = messages.findLast((message) => message.role === 'assistant');
      const calls = arrayOf(assistant?.content)
        .filter((block) => block.type === 'tool_use')
        .map((block) => ({ id: String(block.id), name: String(block.name) }));
      const last = arrayOf(messages.at(-1)?.content);
      // Results must come first in the user turn (protocols.md §10.4).
      const leading = last.slice(0, last.findIndex((block) => block.type !== 'tool_result') >>> 0);
      const results = leading.map((block) => ({ id: String(block.tool_use_id), text: JSON.stringify(block.content) }));
      return { calls, results };
    }
    case 'generate-content': {
      const contents = arrayOf(body.contents);
      const model = contents.findLast((content) => content.role === 'model');
      const calls = arrayOf(model?.parts)
        .filter((part) => part.functionCall !== undefined)
        .map((part) => ({ id: String((part.functionCall as Json).id), name: String((part.functionCall as Json).name) }));
      const last = arrayOf(contents.at(-1)?.parts);
      const results = last
        .filter((part) => part.functionResponse !== undefined)
        .map((part) => ({ id: String((part.functionResponse as Json).id), text: JSON.stringify((part.functionResponse as Json).response) }));
      // Gemini's turn holds function responses and nothing else (protocols.md §10.4).
      expect(results).toHaveLength(last.length);
      for (const part of last) expect((part.functionResponse as Json).name).toBe('get_weather');
      return { calls, results };
    }
  }
}

/** Two calls went up, two results came back, matched by id, each carrying its own text. */
function expectTwoResultsUpstream(upstream: Upstream, body: Json, texts: [string, string]): void {
  const { calls, results } = toolLoop(upstream, body);
  expect(calls).toHaveLength(2);
  expect(new Set(calls.map((call) => call.id)).size).toBe(2);
  for (const call of calls) expect(call.name).toBe('get_weather');
  expect(results).toHaveLength(2);
  expect(results.map((result) => result.id).sort()).toEqual(calls.map((call) => call.id).sort());
  const byId = new Map(results.map((result) => [result.id, result.text]));
  expect(byId.get(calls[0]?.id ?? '')).toContain(texts[0]);
  expect(byId.get(calls[1]?.id ?? '')).toContain(texts[1]);
}

/** The base64 PNG and the URL image, each in the upstream vendor's own shape. */
function expectImagesUpstream(upstream: Upstream, body: Json, url: string, urlMimeKnown: boolean): void {
  const parts = lastUserParts(upstream, body);
  const has = (shape: Json) => expect(parts).toEqual(expect.arrayContaining([expect.objectContaining(shape)]));
  switch (upstream) {
    case 'chat-completions':
      has({ type: 'image_url', image_url: expect.objectContaining({ url: PNG_DATA_URL }) });
      has({ type: 'image_url', image_url: expect.objectContaining({ url }) });
      break;
    case 'responses':
      has({ type: 'input_image', image_url: PNG_DATA_URL });
      has({ type: 'input_image', image_url: url });
      break;
    case 'messages':
      has({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } });
      has({ type: 'image', source: { type: 'url', url } });
      break;
    case 'generate-content':
      has({ inlineData: { mimeType: 'image/png', data: PNG } });
      if (urlMimeKnown) has({ fileData: { mimeType: 'image/png', fileUri: url } });
      break;
  }
}

/** The reasoning knob each upstream should carry for an effort or a budget (shared/map-reasoning-effort.ts). */
function expectReasoningUpstream(
  upstream: Upstream,
  body: Json,
  expected: { effort: string; budget: number; summary: boolean },
): void {
  switch (upstream) {
    case 'chat-completions':
      expect(body.reasoning_effort).toBe(expected.effort);
      break;
    case 'responses':
      expect(body.reasoning).toMatchObject({ effort: expected.effort, ...(expected.summary ? { summary: expect.any(String) } : {}) });
      break;
    case 'messages':
      expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: expected.budget });
      expect(body.max_tokens).toBeGreaterThan(expected.budget);
      break;
    case 'generate-content': {
      const thinking = (body.generationConfig as Json | undefined)?.thinkingConfig as Json | undefined;
      expect(thinking?.thinkingBudget).toBe(expected.budget);
      if (expected.summary) expect(thinking?.includeThoughts).toBe(true);
      break;
    }
  }
}

/**
 * Only the reasoning knob of the upstream's format, and nothing else of reasoning: `budget: null`
 * means no budget at all (messages without `thinking`, Gemini without `thinkingBudget`).
 */
function expectReasoningKnob(upstream: Upstream, body: Json, expected: { effort: string; budget: number | null }): void {
  switch (upstream) {
    case 'chat-completions':
      expect(body.reasoning_effort).toBe(expected.effort);
      break;
    case 'responses':
      expect((body.reasoning as Json | undefined)?.effort).toBe(expected.effort);
      break;
    case 'messages':
      if (expected.budget === null || expected.budget === 0) expect(body).not.toHaveProperty('thinking');
      else expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: expected.budget });
      expect(body).not.toHaveProperty('output_config');
      break;
    case 'generate-content': {
      const thinking = generationSettings(upstream, body).thinkingConfig as Json | undefined;
      expect(thinking?.thinkingBudget).toBe(expected.budget === null ? 0 : expected.budget);
      expect(thinking).not.toHaveProperty('thinkingLevel');
      break;
    }
  }
}

function expectJsonSchemaUpstream(upstream: Upstream, body: Json): void {
  switch (upstream) {
    case 'chat-completions':
      expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: expect.any(String), schema: reportSchema } });
      break;
    case 'responses':
      expect((body.text as Json | undefined)?.format).toMatchObject({ type: 'json_schema', name: expect.any(String), schema: reportSchema });
      break;
    case 'messages':
      expect((body.output_config as Json | undefined)?.format).toEqual({ type: 'json_schema', schema: reportSchema });
      break;
    case 'generate-content':
      expect(body.generationConfig).toMatchObject({ responseMimeType: 'application/json', responseJsonSchema: reportSchema });
      break;
  }
}

/** The stop knob in the upstream's shape; responses has none and drops it. */
function expectStopUpstream(upstream: Upstream, body: Json, stop: string): void {
  const settings = generationSettings(upstream, body);
  switch (upstream) {
    case 'chat-completions':
      expect([settings.stop].flat()).toEqual([stop]);
      break;
    case 'responses':
      expect(JSON.stringify(body)).not.toContain('"stop');
      break;
    case 'messages':
      expect(settings.stop_sequences).toEqual([stop]);
      break;
    case 'generate-content':
      expect(settings.stopSequences).toEqual([stop]);
      break;
  }
}

/** The max-output knob in the upstream's shape (responses is raised to its minimum of 16 when translated). */
function expectMaxTokensUpstream(upstream: Upstream, body: Json, max: number, sameFormat: boolean): void {
  const settings = generationSettings(upstream, body);
  switch (upstream) {
    case 'chat-completions':
      expect(settings.max_completion_tokens ?? settings.max_tokens).toBe(max);
      break;
    case 'responses':
      expect(settings.max_output_tokens).toBe(sameFormat ? max : Math.max(16, max));
      break;
    case 'messages':
      expect(settings.max_tokens).toBe(max);
      break;
    case 'generate-content':
      expect(settings.maxOutputTokens).toBe(max);
      break;
  }
}

/** Every signature-like value in an upstream body: messages thinking, Gemini thoughtSignature, responses encrypted_content. */
function signaturesIn(body: unknown): string[] {
  const found: string[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        if ((key === 'signature' || key === 'thoughtSignature' || key === 'encrypted_content') && typeof inner === 'string') found.push(inner);
        else visit(inner);
      }
    }
  };
  visit(body);
  return found;
}

/** The first answer's signature came back in the vendor's own place (messages thinking block, Gemini thoughtSignature, responses encrypted_content). */
function expectSignatureReplayed(upstream: Upstream, body: Json): void {
  switch (upstream) {
    case 'messages': {
      const assistant = arrayOf(body.messages).findLast((message) => message.role === 'assistant');
      expect(arrayOf(assistant?.content)[0]).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/^sig-/) });
      break;
    }
    case 'generate-content': {
      const modelTurn = arrayOf(body.contents).findLast((content) => content.role === 'model');
      const call = arrayOf(modelTurn?.parts).find((part) => part.functionCall !== undefined);
      expect(call?.thoughtSignature).toEqual(expect.any(String));
      expect(Buffer.from(String(call?.thoughtSignature), 'base64').toString()).toMatch(/^sig-/);
      break;
    }
    case 'responses':
      expect(arrayOf(body.input).find((item) => item.type === 'reasoning')?.encrypted_content).toMatch(/\S/);
      break;
    case 'chat-completions':
      throw new Error('chat-completions carries no signatures');
  }
  expect(signaturesIn(body)).toHaveLength(1);
}

/**
 * The split topology (catalog + router + ingress processes) runs the rows whose behaviour crosses
 * the ingress → router hop: headers both ways (warnings, the reasoning opt-in), router-kept state
 * (previous_response_id), 400s before any upstream call, streams of every client.
 */
const SPLIT_ROWS = [
  'images: openai chat (base64 + url)',
  'images: anthropic url of unknown type',
  'reasoning: openai chat stream, reasoning_content opt-in',
  'reasoning: anthropic stream thinking',
  'signatures: responses.stream previous_response_id tool loop',
  'json schema: genai stream',
  'stop: openai chat stop',
  'max tokens: openai responses.stream → incomplete',
  'usage: anthropic stream usage',
  'image output: genai responseModalities',
  'tools: genai stream 2 functionCalls + results',
];

/** The matrix, or only the rows in `rows`. */
function selectRows(matrix: Matrix, rows: readonly string[] | undefined): Pick<Matrix, 'cell' | 'knownBug'> {
  if (rows === undefined) return matrix;
  return {
    cell: (row, ...rest) => (rows.includes(row) ? matrix.cell(row, ...rest) : undefined),
    knownBug: (row, ...rest) => (rows.includes(row) ? matrix.knownBug(row, ...rest) : undefined),
  };
}

describe.each<TopologyKind>(['all', 'split'])('feature matrix (%s)', (kind) => {
  let topology: Topology;
  let openai: OpenAI;
  let anthropic: Anthropic;
  let genai: GoogleGenAI;
  const fullMatrix = new Matrix(UPSTREAMS);
  const matrix = selectRows(fullMatrix, kind === 'split' ? SPLIT_ROWS : undefined);
  const upstreamBody = async (mark: string): Promise<Json> => (await upstreamRequestWith(topology.simulatorUrl, mark)).body;

  beforeAll(async () => {
    topology = await startTopology(kind);
    openai = new OpenAI({ baseURL: `${topology.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: topology.url, apiKey: TEST_KEY, maxRetries: 0 });
    genai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: topology.url } });
  });

  afterAll(async () => {
    process.stdout.write(fullMatrix.render(`Feature matrix, ${kind} topology (client operation × upstream protocol)`));
    await topology?.stop();
  });

  for (const upstream of UPSTREAMS) {
    const model = MODEL_FOR_PROTOCOL[upstream];

    // ── images ────────────────────────────────────────────────────────────────────────────

    matrix.cell('images: openai chat (base64 + url)', upstream, async () => {
      const mark = marker('chatimg');
      const completion = await openai.chat.completions.create({
        model,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: `Describe ${mark}` },
              { type: 'image_url', image_url: { url: PNG_DATA_URL } },
              { type: 'image_url', image_url: { url: IMAGE_URL } },
            ],
          },
        ],
      });
      expect(completion.choices[0]?.message.content).toContain(mark);
      expectImagesUpstream(upstream, await upstreamBody(mark), IMAGE_URL, true);
    });

    matrix.cell('images: openai responses (base64 + url)', upstream, async () => {
      const mark = marker('respimg');
      const response = await openai.responses.create({
        model,
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: `Describe ${mark}` },
              { type: 'input_image', image_url: PNG_DATA_URL, detail: 'auto' },
              { type: 'input_image', image_url: IMAGE_URL, detail: 'auto' },
            ],
          },
        ],
      });
      expect(response.output_text).toContain(mark);
      expectImagesUpstream(upstream, await upstreamBody(mark), IMAGE_URL, true);
    });

    matrix.cell('images: anthropic (base64 + url)', upstream, async () => {
      const mark = marker('msgimg');
      const message = await anthropic.messages.create({
        model,
        max_tokens: 256,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: `Describe ${mark}` },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
              { type: 'image', source: { type: 'url', url: IMAGE_URL } },
            ],
          },
        ],
      });
      expect(messageText(message)).toContain(mark);
      expectImagesUpstream(upstream, await upstreamBody(mark), IMAGE_URL, true);
    });

    matrix.cell('images: genai (inlineData + fileData)', upstream, async () => {
      const mark = marker('genimg');
      const response = await genai.models.generateContent({
        model,
        contents: [
          {
            role: 'user',
            parts: [{ text: `Describe ${mark}` }, { inlineData: { mimeType: 'image/png', data: PNG } }, { fileData: { fileUri: IMAGE_URL, mimeType: 'image/png' } }],
          },
        ],
      });
      expect(genaiText(response)).toContain(mark);
      expectImagesUpstream(upstream, await upstreamBody(mark), IMAGE_URL, true);
    });

    // fileData.mimeType is optional: the extension tells the others it is an image.
    matrix.cell('images: genai fileData without mimeType', upstream, async () => {
      const mark = marker('genimgnomime');
      const response = await genai.models.generateContent({
        model,
        contents: [{ role: 'user', parts: [{ text: `Describe ${mark}` }, { inlineData: { mimeType: 'image/png', data: PNG } }, { fileData: { fileUri: IMAGE_URL } }] }],
      });
      expect(genaiText(response)).toContain(mark);
      const body = await upstreamBody(mark);
      if (upstream === 'generate-content') expect(lastUserParts(upstream, body)).toContainEqual({ fileData: { fileUri: IMAGE_URL } });
      else expectImagesUpstream(upstream, body, IMAGE_URL, true);
    });

    // An http(s) URL of unknown type: generate-content cannot carry it (no fetching) → 400 in
    // the client's own envelope; every other upstream takes the URL as is.
    matrix.cell('images: openai chat url of unknown type', upstream, async () => {
      const mark = marker('chatopaque');
      const call = openai.chat.completions.create({
        model,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: `Describe ${mark}` },
              { type: 'image_url', image_url: { url: PNG_DATA_URL } },
              { type: 'image_url', image_url: { url: OPAQUE_URL } },
            ],
          },
        ],
      });
      if (upstream !== 'generate-content') {
        expect((await call).choices[0]?.message.content).toContain(mark);
        expectImagesUpstream(upstream, await upstreamBody(mark), OPAQUE_URL, false);
        return;
      }
      const error = await rejectionOf(call);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining(OPAQUE_URL) });
      await expect(upstreamBody(mark)).rejects.toThrow(/no upstream request/);
    });

    matrix.cell('images: openai responses url of unknown type', upstream, async () => {
      const mark = marker('respopaque');
      const call = openai.responses.create({
        model,
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: `Describe ${mark}` },
              { type: 'input_image', image_url: PNG_DATA_URL, detail: 'auto' },
              { type: 'input_image', image_url: OPAQUE_URL, detail: 'auto' },
            ],
          },
        ],
      });
      if (upstream !== 'generate-content') {
        expect((await call).output_text).toContain(mark);
        expectImagesUpstream(upstream, await upstreamBody(mark), OPAQUE_URL, false);
        return;
      }
      const error = await rejectionOf(call);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining(OPAQUE_URL) });
    });

    matrix.cell('images: anthropic url of unknown type', upstream, async () => {
      const mark = marker('msgopaque');
      const call = anthropic.messages.create({
        model,
        max_tokens: 256,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: `Describe ${mark}` },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
              { type: 'image', source: { type: 'url', url: OPAQUE_URL } },
            ],
          },
        ],
      });
      if (upstream !== 'generate-content') {
        expect(messageText(await call)).toContain(mark);
        expectImagesUpstream(upstream, await upstreamBody(mark), OPAQUE_URL, false);
        return;
      }
      const error = await rejectionOf(call);
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.stringContaining(OPAQUE_URL) },
      });
    });

    // The same refusal before a stream starts: a plain 400, never an error event after a 200.
    matrix.cell('images: anthropic stream url of unknown type', upstream, async () => {
      const mark = marker('msgopaquestream');
      const stream = anthropic.messages.stream({
        model,
        max_tokens: 256,
        messages: [{ role: 'user', content: [{ type: 'text', text: `Describe ${mark}` }, { type: 'image', source: { type: 'url', url: OPAQUE_URL } }] }],
      });
      if (upstream !== 'generate-content') {
        expect(messageText(await stream.finalMessage())).toContain(mark);
        return;
      }
      const error = await rejectionOf(stream.finalMessage());
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    });

    matrix.cell('images: openai chat stream url of unknown type', upstream, async () => {
      const mark = marker('chatopaquestream');
      const call = openai.chat.completions.create({
        model,
        stream: true,
        messages: [{ role: 'user', content: [{ type: 'text', text: `Describe ${mark}` }, { type: 'image_url', image_url: { url: OPAQUE_URL } }] }],
      });
      if (upstream !== 'generate-content') {
        expect((await collectChat(await call)).text).toContain(mark);
        return;
      }
      const error = await rejectionOf(call);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: 'invalid_request_error' });
    });

    // ── reasoning ─────────────────────────────────────────────────────────────────────────

    matrix.cell('reasoning: openai chat reasoning_effort', upstream, async () => {
      const mark = marker('chatthink');
      const completion = await openai.chat.completions.create({
        model,
        reasoning_effort: 'medium',
        max_completion_tokens: 16000,
        messages: [{ role: 'user', content: `Think about ${mark}` }],
      });
      expectReasoningUpstream(upstream, await upstreamBody(mark), { effort: 'medium', budget: 8192, summary: false });
      expect(completion.choices[0]?.message.content).toContain(mark);
      expect(completion.usage?.completion_tokens_details?.reasoning_tokens).toBeGreaterThan(0);
      // reasoning_content is an opt-in extension (x-switchyard-include-reasoning); a chat upstream's own passes through.
      if (upstream !== 'chat-completions') expect(completion.choices[0]?.message).not.toHaveProperty('reasoning_content');
    });

    matrix.cell('reasoning: openai chat stream, reasoning_content opt-in', upstream, async () => {
      const mark = marker('chatthinkstream');
      const stream = await openai.chat.completions.create(
        {
          model,
          stream: true,
          stream_options: { include_usage: true },
          reasoning_effort: 'low',
          messages: [{ role: 'user', content: `Think about ${mark}` }],
        },
        { headers: { 'x-switchyard-include-reasoning': 'true' } },
      );
      const { text, reasoning, usage } = await collectChat(stream);
      expectReasoningUpstream(upstream, await upstreamBody(mark), { effort: 'low', budget: 1024, summary: false });
      expect(text).toContain(mark);
      expect(usage?.completion_tokens_details?.reasoning_tokens).toBeGreaterThan(0);
      // Gemini hides thoughts unless includeThoughts, which chat cannot ask for.
      if (upstream !== 'generate-content') expect(reasoning).toContain('Thinking about');
    });

    // Gemini hides thoughts unless includeThoughts, which a chat client cannot ask for: no column.
    const chatReasoningOptIn = async () => {
      const mark = marker('chatthinkoptin');
      const completion = await openai.chat.completions.create(
        { model, reasoning_effort: 'low', messages: [{ role: 'user', content: `Think about ${mark}` }] },
        { headers: { 'x-switchyard-include-reasoning': 'true' } },
      );
      expect(completion.choices[0]?.message.content).toContain(mark);
      expect((completion.choices[0]?.message as { reasoning_content?: string }).reasoning_content).toContain('Thinking about');
    };
    if (upstream !== 'generate-content') matrix.cell('reasoning: openai chat reasoning_content opt-in', upstream, chatReasoningOptIn);

    matrix.cell('reasoning: openai responses reasoning item', upstream, async () => {
      const mark = marker('respthink');
      const response = await openai.responses.create({
        model,
        reasoning: { effort: 'medium', summary: 'auto' },
        max_output_tokens: 16000,
        input: `Think about ${mark}`,
      });
      expectReasoningUpstream(upstream, await upstreamBody(mark), { effort: 'medium', budget: 8192, summary: true });
      expect(response.output_text).toContain(mark);
      const reasoning = response.output.find((item) => item.type === 'reasoning');
      expect(reasoning?.summary.map((part) => part.text).join('')).toContain('Thinking about');
      // The reasoning item comes before the answer.
      expect(response.output[0]?.type).toBe('reasoning');
      expect(response.usage?.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    });

    matrix.cell('reasoning: openai responses.stream summary events', upstream, async () => {
      const mark = marker('respthinkstream');
      const stream = openai.responses.stream({ model, reasoning: { effort: 'low', summary: 'auto' }, input: `Think about ${mark}` });
      let summary = '';
      stream.on('response.reasoning_summary_text.delta', (event) => (summary += event.delta));
      const final = await stream.finalResponse();
      expectReasoningUpstream(upstream, await upstreamBody(mark), { effort: 'low', budget: 1024, summary: true });
      expect(summary).toContain('Thinking about');
      const item = final.output.find((output) => output.type === 'reasoning');
      expect(item?.summary.map((part) => part.text).join('')).toBe(summary);
      expect(final.output_text).toContain(mark);
    });

    matrix.cell('reasoning: anthropic thinking', upstream, async () => {
      const mark = marker('msgthink');
      const message = await anthropic.messages.create({
        model,
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 3000 },
        messages: [{ role: 'user', content: `Think about ${mark}` }],
      });
      // 3000 tokens: an effort of medium (< 12288), a budget as is.
      expectReasoningUpstream(upstream, await upstreamBody(mark), { effort: 'medium', budget: 3000, summary: true });
      expect(messageText(message)).toContain(mark);
      const thinking = message.content.filter((block) => block.type === 'thinking');
      // A thinking block is only shown when its signature is a messages one (it must replay).
      if (upstream === 'messages') {
        expect(thinking).toHaveLength(1);
        expect(thinking[0]?.thinking).toContain('Thinking about');
        expect(thinking[0]?.signature).not.toBe('');
        expect(message.content[0]?.type).toBe('thinking');
      } else {
        expect(thinking).toHaveLength(0);
      }
    });

    matrix.cell('reasoning: anthropic stream thinking', upstream, async () => {
      const mark = marker('msgthinkstream');
      const stream = anthropic.messages.stream({
        model,
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: `Think about ${mark}` }],
      });
      let thinkingDeltas = '';
      let signature = '';
      stream.on('thinking', (delta) => (thinkingDeltas += delta));
      stream.on('signature', (value) => (signature = value));
      const final = await stream.finalMessage();
      expectReasoningUpstream(upstream, await upstreamBody(mark), { effort: 'low', budget: 1024, summary: true });
      expect(messageText(final)).toContain(mark);
      if (upstream === 'messages') {
        expect(thinkingDeltas).toContain('Thinking about');
        expect(signature).not.toBe('');
        expect(final.content[0]).toMatchObject({ type: 'thinking', thinking: thinkingDeltas, signature });
      } else {
        expect(thinkingDeltas).toBe('');
        expect(final.content.some((block) => block.type === 'thinking')).toBe(false);
      }
    });

    matrix.cell('reasoning: genai thinkingConfig thought parts', upstream, async () => {
      const mark = marker('genthink');
      const response = await genai.models.generateContent({
        model,
        contents: `Think about ${mark}`,
        config: { thinkingConfig: { includeThoughts: true, thinkingBudget: 1500 } },
      });
      // 1500 tokens: an effort of low (< 2048), a budget as is.
      expectReasoningUpstream(upstream, await upstreamBody(mark), { effort: 'low', budget: 1500, summary: true });
      const parts = response.candidates?.[0]?.content?.parts ?? [];
      const thoughts = parts.filter((part) => part.thought === true).map((part) => part.text ?? '').join('');
      expect(thoughts).toContain('Thinking about');
      // Thoughts come first, the answer after them.
      expect(parts[0]?.thought).toBe(true);
      expect(genaiText(response)).toContain(mark);
      expect(response.usageMetadata?.thoughtsTokenCount).toBeGreaterThan(0);
    });

    matrix.cell('reasoning: genai stream thought parts', upstream, async () => {
      const mark = marker('genthinkstream');
      const { parts, usage, warning } = await collectGenai(
        await genai.models.generateContentStream({
          model,
          contents: `Think about ${mark}`,
          config: { thinkingConfig: { includeThoughts: true, thinkingBudget: 9000 } },
        }),
      );
      const body = await upstreamBody(mark);
      if (upstream === 'messages') {
        // The catalog caps model-messages at 2048 output tokens: the budget shrinks to fit (formats/messages README).
        expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
        expect(body.max_tokens).toBe(2048);
        expect(warning).toMatch(/thinking budget was reduced to 1024/);
      } else {
        expectReasoningUpstream(upstream, body, { effort: 'medium', budget: 9000, summary: true });
      }
      expect(parts.filter((part) => part.thought === true).map((part) => part.text ?? '').join('')).toContain('Thinking about');
      expect(partsText(parts)).toContain(mark);
      expect(usage?.thoughtsTokenCount).toBeGreaterThan(0);
    });

    // Gemini shows thoughts only with includeThoughts: true. A budget alone thinks, hidden.
    const hiddenThoughts = async () => {
      const mark = marker('genhidden');
      const config = { thinkingConfig: { thinkingBudget: 1500 } };
      const response = await genai.models.generateContent({ model, contents: `Think about ${mark}`, config });
      expect(genaiText(response)).toContain(mark);
      expect(response.usageMetadata?.thoughtsTokenCount).toBeGreaterThan(0);
      const streamed = await collectGenai(await genai.models.generateContentStream({ model, contents: `Think about ${mark}`, config }));
      expect(partsText(streamed.parts)).toContain(mark);
      expect((response.candidates?.[0]?.content?.parts ?? []).filter((part) => part.thought === true)).toEqual([]);
      expect(streamed.parts.filter((part) => part.thought === true)).toEqual([]);
    };
    matrix.cell('reasoning: genai budget without includeThoughts (hidden)', upstream, hiddenThoughts);

    // ── reasoning: the effort ↔ budget table (protocols.md §10.7, shared/map-reasoning-effort.ts) ──
    // Each cell sends several settings; `null` means the upstream body carries no reasoning knob.

    matrix.cell('reasoning map: openai chat none / minimal / xhigh', upstream, async () => {
      const cases = [
        { effort: 'none', budget: 0 },
        { effort: 'minimal', budget: 1024 },
        { effort: 'xhigh', budget: 24576 },
      ] as const;
      for (const { effort, budget } of cases) {
        const mark = marker('chatmap');
        await openai.chat.completions.create({ model, reasoning_effort: effort, max_completion_tokens: 30000, messages: [{ role: 'user', content: `Hi ${mark}` }] });
        expectReasoningKnob(upstream, await upstreamBody(mark), { effort, budget: effort === 'none' && upstream === 'messages' ? null : budget });
      }
    });

    matrix.cell('reasoning map: anthropic adaptive / output_config.effort', upstream, async () => {
      const adaptive = marker('msgmapadaptive');
      await anthropic.messages.create({
        model,
        max_tokens: 16000,
        thinking: { type: 'adaptive' },
        messages: [{ role: 'user', content: `Hi ${adaptive}` }],
      });
      const effort = marker('msgmapeffort');
      await anthropic.messages.create({ model, max_tokens: 16000, output_config: { effort: 'high' }, messages: [{ role: 'user', content: `Hi ${effort}` }] });
      if (upstream === 'messages') {
        // Same format: the client's own knobs, untouched.
        expect((await upstreamBody(adaptive)).thinking).toEqual({ type: 'adaptive' });
        expect((await upstreamBody(effort)).output_config).toEqual({ effort: 'high' });
        return;
      }
      // adaptive reads as medium; an effort without thinking is an effort.
      expectReasoningKnob(upstream, await upstreamBody(adaptive), { effort: 'medium', budget: 8192 });
      expectReasoningKnob(upstream, await upstreamBody(effort), { effort: 'high', budget: 16384 });
    });

    matrix.cell('reasoning map: genai thinkingBudget -1 / 0 / thinkingLevel', upstream, async () => {
      const dynamic = marker('genmapdynamic');
      await genai.models.generateContent({ model, contents: `Hi ${dynamic}`, config: { maxOutputTokens: 30000, thinkingConfig: { thinkingBudget: -1 } } });
      const off = marker('genmapoff');
      await genai.models.generateContent({ model, contents: `Hi ${off}`, config: { thinkingConfig: { thinkingBudget: 0 } } });
      const level = marker('genmaplevel');
      await genai.models.generateContent({ model, contents: `Hi ${level}`, config: { maxOutputTokens: 30000, thinkingConfig: { thinkingLevel: ThinkingLevel.HIGH } } });
      if (upstream === 'generate-content') {
        expect(generationSettings(upstream, await upstreamBody(dynamic)).thinkingConfig).toEqual({ thinkingBudget: -1 });
        expect(generationSettings(upstream, await upstreamBody(level)).thinkingConfig).toEqual({ thinkingLevel: 'HIGH' });
        return;
      }
      // Dynamic (-1) reads as medium, 0 as none (§10.7 reverse table).
      expectReasoningKnob(upstream, await upstreamBody(dynamic), { effort: 'medium', budget: 8192 });
      expectReasoningKnob(upstream, await upstreamBody(off), { effort: 'none', budget: null });
      expectReasoningKnob(upstream, await upstreamBody(level), { effort: 'high', budget: 16384 });
    });

    // ── signatures: carried back to their own vendor, dropped for the others ───────────────

    matrix.cell('signatures: anthropic thinking replayed (from messages)', upstream, async () => {
      const mark = marker('msgsig');
      const tools: Anthropic.Tool[] = [{ name: 'get_weather', description: 'Weather now', input_schema: weatherSchema }];
      const ask = { role: 'user' as const, content: `Weather in Oslo? ${mark}` };
      // The first turn always comes from a messages upstream: its signature is what is replayed.
      const first = await anthropic.messages.create({
        model: MODEL_FOR_PROTOCOL.messages,
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        tools,
        messages: [ask],
      });
      const thinking = first.content.find((block) => block.type === 'thinking');
      const call = first.content.find((block) => block.type === 'tool_use');
      expect(thinking?.signature).toMatch(/\S/);
      expect(call?.type).toBe('tool_use');
      if (thinking === undefined || call?.type !== 'tool_use') return;
      const second = await anthropic.messages.create({
        model,
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        tools,
        messages: [
          ask,
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'Sunny, 21 degrees' }] },
        ],
      });
      expect(second.stop_reason).toBe('end_turn');
      expect(messageText(second)).toContain('Sunny, 21 degrees');
      const requests = await upstreamRequestsWith(topology.simulatorUrl, mark);
      const body = requests.at(-1)?.body;
      if (upstream === 'messages') {
        const assistant = arrayOf(body?.messages).find((message) => message.role === 'assistant');
        expect(arrayOf(assistant?.content)[0]).toEqual({ type: 'thinking', thinking: thinking.thinking, signature: thinking.signature });
      } else {
        expect(signaturesIn(body)).toEqual([]);
        expect(JSON.stringify(body)).not.toContain(thinking.signature);
      }
    });

    matrix.cell('signatures: genai thoughtSignature replayed (from generate-content)', upstream, async () => {
      const mark = marker('gensig');
      const tools = [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather now', parametersJsonSchema: weatherSchema }] }];
      const ask: Content = { role: 'user', parts: [{ text: `Weather in Oslo? ${mark}` }] };
      const config = { tools, thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } };
      const first = await genai.models.generateContent({ model: MODEL_FOR_PROTOCOL['generate-content'], contents: [ask], config });
      const modelTurn = first.candidates?.[0]?.content;
      const callPart = modelTurn?.parts?.find((part) => part.functionCall !== undefined);
      const signature = callPart?.thoughtSignature;
      expect(signature).toMatch(/\S/);
      if (modelTurn === undefined || callPart?.functionCall === undefined || signature === undefined) return;
      const second = await genai.models.generateContent({
        model,
        config,
        contents: [
          ask,
          modelTurn,
          {
            role: 'user',
            parts: [{ functionResponse: { id: callPart.functionCall.id, name: 'get_weather', response: { output: 'Sunny, 21 degrees' } } }],
          },
        ],
      });
      expect(genaiText(second)).toContain('Sunny, 21 degrees');
      const body = (await upstreamRequestsWith(topology.simulatorUrl, mark)).at(-1)?.body;
      if (upstream === 'generate-content') {
        const model = arrayOf(body?.contents).find((content) => content.role === 'model');
        const replayed = arrayOf(model?.parts).find((part) => part.functionCall !== undefined);
        expect(replayed?.thoughtSignature).toBe(signature);
      } else {
        expect(signaturesIn(body)).toEqual([]);
        expect(JSON.stringify(body)).not.toContain(signature);
      }
    });

    matrix.cell('signatures: responses encrypted_content replayed (from responses)', upstream, async () => {
      const mark = marker('respsig');
      const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'get_weather', parameters: weatherSchema, strict: false }];
      const ask: OpenAI.Responses.ResponseInputItem = { role: 'user', content: `Weather in Oslo? ${mark}` };
      const settings = { reasoning: { effort: 'low' as const, summary: 'auto' as const }, include: ['reasoning.encrypted_content' as const], store: false, tools };
      const first = await openai.responses.create({ model: MODEL_FOR_PROTOCOL.responses, input: [ask], ...settings });
      const reasoning = first.output.find((item) => item.type === 'reasoning');
      const call = first.output.find((item) => item.type === 'function_call');
      expect(reasoning?.encrypted_content).toMatch(/\S/);
      if (reasoning?.encrypted_content == null || call === undefined) return;
      const second = await openai.responses.create({
        model,
        ...settings,
        input: [ask, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: 'Sunny, 21 degrees' }],
      });
      expect(second.output_text).toContain('Sunny, 21 degrees');
      const body = (await upstreamRequestsWith(topology.simulatorUrl, mark)).at(-1)?.body;
      if (upstream === 'responses') {
        expect(arrayOf(body?.input).find((item) => item.type === 'reasoning')).toMatchObject({ encrypted_content: reasoning.encrypted_content });
      } else {
        expect(signaturesIn(body)).toEqual([]);
        expect(JSON.stringify(body)).not.toContain(reasoning.encrypted_content);
      }
    });

    // Switchyard keeps the first turn (previous_response_id), so the signature comes back from
    // its own state, through translation, to the vendor that made it.
    matrix.cell('signatures: responses previous_response_id tool loop', upstream, async () => {
      const mark = marker('respprev');
      const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'get_weather', parameters: weatherSchema, strict: false }];
      const settings = { reasoning: { effort: 'low' as const, summary: 'auto' as const }, include: ['reasoning.encrypted_content' as const], tools };
      const first = await openai.responses.create({ model, input: `Weather in Oslo? ${mark}`, ...settings });
      const call = first.output.find((item) => item.type === 'function_call');
      expect(call).toBeDefined();
      if (call === undefined) return;
      const firstBody = JSON.stringify((await upstreamRequestsWith(topology.simulatorUrl, mark)).at(-1)?.body);
      const second = await openai.responses.create({
        model,
        ...settings,
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: call.call_id, output: 'Sunny, 21 degrees' }],
      });
      expect(second.output_text).toContain('Sunny, 21 degrees');
      const requests = await upstreamRequestsWith(topology.simulatorUrl, mark);
      const body = requests.at(-1)?.body;
      expect(JSON.stringify(body)).not.toBe(firstBody);
      const signatures = signaturesIn(body);
      if (upstream === 'chat-completions') {
        expect(signatures).toEqual([]);
      } else {
        // One signature from the first answer, in the vendor's own place.
        expect(signatures).toHaveLength(1);
        if (upstream === 'messages') {
          const assistant = arrayOf(body?.messages).find((message) => message.role === 'assistant');
          expect(arrayOf(assistant?.content)[0]).toMatchObject({ type: 'thinking', signature: signatures[0] });
        }
        if (upstream === 'generate-content') {
          const modelTurn = arrayOf(body?.contents).find((content) => content.role === 'model');
          expect(arrayOf(modelTurn?.parts).find((part) => part.functionCall !== undefined)?.thoughtSignature).toBe(signatures[0]);
        }
        if (upstream === 'responses') expect(arrayOf(body?.input).find((item) => item.type === 'reasoning')).toHaveProperty('encrypted_content', signatures[0]);
      }
    });

    matrix.cell('signatures: responses.stream previous_response_id tool loop', upstream, async () => {
      const mark = marker('respprevstream');
      const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'get_weather', parameters: weatherSchema, strict: false }];
      const settings = { reasoning: { effort: 'low' as const, summary: 'auto' as const }, include: ['reasoning.encrypted_content' as const], tools };
      const first = await openai.responses.stream({ model, input: `Weather in Oslo? ${mark}`, ...settings }).finalResponse();
      const call = first.output.find((item) => item.type === 'function_call');
      expect(first.output[0]?.type).toBe('reasoning');
      expect(call).toBeDefined();
      if (call === undefined) return;
      const second = await openai.responses
        .stream({
          model,
          ...settings,
          previous_response_id: first.id,
          input: [{ type: 'function_call_output', call_id: call.call_id, output: 'Sunny, 21 degrees' }],
        })
        .finalResponse();
      expect(second.output_text).toContain('Sunny, 21 degrees');
      const body = (await upstreamRequestsWith(topology.simulatorUrl, mark)).at(-1)?.body;
      expect(JSON.stringify(body)).toContain('Sunny, 21 degrees');
      if (upstream === 'chat-completions') expect(signaturesIn(body)).toEqual([]);
      else expectSignatureReplayed(upstream, body ?? {});
    });

    // A stored conversation continued on another model: the signatures it holds go back only to
    // the vendor that made them.
    for (const origin of ['messages', 'generate-content'] as const) {
      matrix.cell(`signatures: previous_response_id, turn 1 on ${origin === 'messages' ? 'messages' : 'gemini'}`, upstream, async () => {
        const mark = marker('respswitch');
        const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'get_weather', parameters: weatherSchema, strict: false }];
        const reasoning = { effort: 'low' as const, summary: 'auto' as const };
        const first = await openai.responses.create({ model: MODEL_FOR_PROTOCOL[origin], reasoning, tools, input: `Weather in Oslo? ${mark}` });
        const call = first.output.find((item) => item.type === 'function_call');
        expect(call).toBeDefined();
        const [firstRequest] = await upstreamRequestsWith(topology.simulatorUrl, mark);
        expect(firstRequest?.path).toMatch(origin === 'messages' ? /\/v1\/messages$/ : /generateContent$/);
        await openai.responses.create({
          model,
          reasoning,
          tools,
          previous_response_id: first.id,
          input: [{ type: 'function_call_output', call_id: call?.call_id ?? '', output: 'Sunny, 21 degrees' }],
        });
        const body = (await upstreamRequestsWith(topology.simulatorUrl, mark)).at(-1)?.body ?? {};
        expect(JSON.stringify(body)).toContain('Sunny, 21 degrees');
        if (upstream === origin) expectSignatureReplayed(upstream, body);
        else expect(signaturesIn(body)).toEqual([]);
      });
    }

    // protocols.md §10.4: signatures are kept in Switchyard state by call id and re-attached when
    // the same vendor sees the conversation again, whatever the client's format. Same-format
    // pairs carry them in the client's own history.
    const reattach = (row: string, run: () => Promise<void>, sameFormatClient: Upstream) => {
      if (upstream !== 'messages' && upstream !== 'generate-content') return;
      // Same-format clients carry signatures in their own history; others get them back from Switchyard's store.
      void sameFormatClient;
      matrix.cell(row, upstream, run);
    };

    reattach(
      'signatures: chat tool loop re-attached to the same vendor',
      async () => {
        const mark = marker('chatreattach');
        const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', parameters: weatherSchema } }];
        const ask: OpenAI.ChatCompletionMessageParam = { role: 'user', content: `Weather in Oslo? ${mark}` };
        const first = await openai.chat.completions.create({ model, reasoning_effort: 'low', tools, messages: [ask] });
        const calls = first.choices[0]?.message.tool_calls ?? [];
        expect(calls).toHaveLength(1);
        await openai.chat.completions.create({
          model,
          reasoning_effort: 'low',
          tools,
          messages: [
            ask,
            { role: 'assistant', content: null, tool_calls: calls },
            { role: 'tool', tool_call_id: calls[0]?.id ?? '', content: 'Sunny, 21 degrees' },
          ],
        });
        expectSignatureReplayed(upstream, await upstreamBody(mark));
      },
      'chat-completions',
    );

    reattach(
      'signatures: anthropic tool loop re-attached to the same vendor',
      async () => {
        const mark = marker('msgreattach');
        const tools: Anthropic.Tool[] = [{ name: 'get_weather', description: 'Weather now', input_schema: weatherSchema }];
        const ask: Anthropic.MessageParam = { role: 'user', content: `Weather in Oslo? ${mark}` };
        const thinking = { type: 'enabled' as const, budget_tokens: 1024 };
        const first = await anthropic.messages.create({ model, max_tokens: 4096, thinking, tools, messages: [ask] });
        const call = first.content.find((block) => block.type === 'tool_use');
        expect(call).toBeDefined();
        await anthropic.messages.create({
          model,
          max_tokens: 4096,
          thinking,
          tools,
          messages: [
            ask,
            { role: 'assistant', content: first.content },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: call?.id ?? '', content: 'Sunny, 21 degrees' }] },
          ],
        });
        expectSignatureReplayed(upstream, await upstreamBody(mark));
      },
      'messages',
    );

    reattach(
      'signatures: genai tool loop re-attached to the same vendor',
      async () => {
        const mark = marker('genreattach');
        const config = {
          tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: weatherSchema }] }],
          thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 },
        };
        const ask: Content = { role: 'user', parts: [{ text: `Weather in Oslo? ${mark}` }] };
        const first = await genai.models.generateContent({ model, config, contents: [ask] });
        const modelTurn = first.candidates?.[0]?.content;
        const call = first.functionCalls?.[0];
        expect(call).toBeDefined();
        await genai.models.generateContent({
          model,
          config,
          contents: [
            ask,
            modelTurn ?? { role: 'model', parts: [] },
            { role: 'user', parts: [{ functionResponse: { id: call?.id, name: 'get_weather', response: { output: 'Sunny, 21 degrees' } } }] },
          ],
        });
        expectSignatureReplayed(upstream, await upstreamBody(mark));
      },
      'generate-content',
    );

    // ── JSON mode and JSON schema ─────────────────────────────────────────────────────────

    matrix.cell('json schema: openai chat response_format', upstream, async () => {
      const mark = marker('chatjson');
      const completion = await openai.chat.completions.create({
        model,
        messages: [{ role: 'user', content: `Report ${mark}` }],
        response_format: { type: 'json_schema', json_schema: { name: 'report', schema: reportSchema, strict: true } },
      });
      expectJsonSchemaUpstream(upstream, await upstreamBody(mark));
      expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual(REPORT_SAMPLE);
    });

    matrix.cell('json schema: openai chat stream', upstream, async () => {
      const mark = marker('chatjsonstream');
      const stream = await openai.chat.completions.create({
        model,
        stream: true,
        messages: [{ role: 'user', content: `Report ${mark}` }],
        response_format: { type: 'json_schema', json_schema: { name: 'report', schema: reportSchema } },
      });
      const { text } = await collectChat(stream);
      expectJsonSchemaUpstream(upstream, await upstreamBody(mark));
      expect(JSON.parse(text)).toEqual(REPORT_SAMPLE);
    });

    matrix.cell('json mode: openai chat json_object', upstream, async () => {
      const mark = marker('chatjsonmode');
      const { data, response } = await openai.chat.completions
        .create({ model, messages: [{ role: 'user', content: `Reply in JSON ${mark}` }], response_format: { type: 'json_object' } })
        .withResponse();
      const body = await upstreamBody(mark);
      const text = data.choices[0]?.message.content ?? '';
      if (upstream === 'messages') {
        // messages has no schemaless JSON mode: dropped with a warning (formats/messages README).
        expect(response.headers.get('x-switchyard-warning')).toMatch(/JSON mode/);
        expect(body).not.toHaveProperty('output_config');
        return;
      }
      if (upstream === 'chat-completions') expect(body.response_format).toEqual({ type: 'json_object' });
      if (upstream === 'responses') expect((body.text as Json).format).toEqual({ type: 'json_object' });
      if (upstream === 'generate-content') {
        expect(body.generationConfig).toMatchObject({ responseMimeType: 'application/json' });
        expect(body.generationConfig).not.toHaveProperty('responseJsonSchema');
      }
      expect(JSON.parse(text)).toEqual({ reply: expect.stringContaining(mark) });
    });

    matrix.cell('json schema: openai responses text.format', upstream, async () => {
      const mark = marker('respjson');
      const response = await openai.responses.create({
        model,
        input: `Report ${mark}`,
        text: { format: { type: 'json_schema', name: 'report', schema: reportSchema, strict: true } },
      });
      expectJsonSchemaUpstream(upstream, await upstreamBody(mark));
      expect(JSON.parse(response.output_text)).toEqual(REPORT_SAMPLE);
    });

    matrix.cell('json schema: openai responses.stream', upstream, async () => {
      const mark = marker('respjsonstream');
      const stream = openai.responses.stream({
        model,
        input: `Report ${mark}`,
        text: { format: { type: 'json_schema', name: 'report', schema: reportSchema, strict: true } },
      });
      const final = await stream.finalResponse();
      expectJsonSchemaUpstream(upstream, await upstreamBody(mark));
      expect(JSON.parse(final.output_text)).toEqual(REPORT_SAMPLE);
    });

    matrix.cell('json mode: openai responses json_object', upstream, async () => {
      const mark = marker('respjsonmode');
      const { data, response } = await openai.responses
        .create({ model, input: `Reply in JSON ${mark}`, text: { format: { type: 'json_object' } } })
        .withResponse();
      const body = await upstreamBody(mark);
      if (upstream === 'messages') {
        expect(response.headers.get('x-switchyard-warning')).toMatch(/JSON mode/);
        expect(body).not.toHaveProperty('output_config');
        return;
      }
      if (upstream === 'chat-completions') expect(body.response_format).toEqual({ type: 'json_object' });
      if (upstream === 'responses') expect((body.text as Json).format).toEqual({ type: 'json_object' });
      if (upstream === 'generate-content') expect(body.generationConfig).toEqual({ responseMimeType: 'application/json' });
      expect(JSON.parse(data.output_text)).toEqual({ reply: expect.stringContaining(mark) });
    });

    matrix.cell('json schema: anthropic output_config.format', upstream, async () => {
      const mark = marker('msgjson');
      const message = await anthropic.messages.create({
        model,
        max_tokens: 256,
        messages: [{ role: 'user', content: `Report ${mark}` }],
        output_config: { format: { type: 'json_schema', schema: reportSchema } },
      });
      expectJsonSchemaUpstream(upstream, await upstreamBody(mark));
      expect(JSON.parse(messageText(message))).toEqual(REPORT_SAMPLE);
    });

    matrix.cell('json schema: anthropic stream', upstream, async () => {
      const mark = marker('msgjsonstream');
      const final = await anthropic.messages
        .stream({
          model,
          max_tokens: 256,
          messages: [{ role: 'user', content: `Report ${mark}` }],
          output_config: { format: { type: 'json_schema', schema: reportSchema } },
        })
        .finalMessage();
      expectJsonSchemaUpstream(upstream, await upstreamBody(mark));
      expect(JSON.parse(messageText(final))).toEqual(REPORT_SAMPLE);
    });

    matrix.cell('json schema: genai responseJsonSchema', upstream, async () => {
      const mark = marker('genjson');
      const response = await genai.models.generateContent({
        model,
        contents: `Report ${mark}`,
        config: { responseMimeType: 'application/json', responseJsonSchema: reportSchema },
      });
      expectJsonSchemaUpstream(upstream, await upstreamBody(mark));
      expect(JSON.parse(genaiText(response))).toEqual(REPORT_SAMPLE);
    });

    matrix.cell('json schema: genai stream', upstream, async () => {
      const mark = marker('genjsonstream');
      const { parts } = await collectGenai(
        await genai.models.generateContentStream({
          model,
          contents: `Report ${mark}`,
          config: { responseMimeType: 'application/json', responseJsonSchema: reportSchema },
        }),
      );
      expectJsonSchemaUpstream(upstream, await upstreamBody(mark));
      expect(JSON.parse(partsText(parts))).toEqual(REPORT_SAMPLE);
    });

    matrix.cell('json mode: genai responseMimeType', upstream, async () => {
      const mark = marker('genjsonmode');
      const response = await genai.models.generateContent({
        model,
        contents: `Reply in JSON ${mark}`,
        config: { responseMimeType: 'application/json' },
      });
      const body = await upstreamBody(mark);
      if (upstream === 'messages') {
        expect(genaiWarning(response)).toMatch(/JSON mode/);
        expect(body).not.toHaveProperty('output_config');
        return;
      }
      if (upstream === 'chat-completions') expect(body.response_format).toEqual({ type: 'json_object' });
      if (upstream === 'responses') expect((body.text as Json).format).toEqual({ type: 'json_object' });
      if (upstream === 'generate-content') expect(body.generationConfig).toEqual({ responseMimeType: 'application/json' });
      expect(JSON.parse(genaiText(response))).toEqual({ reply: expect.stringContaining(mark) });
    });

    // ── stop sequences ────────────────────────────────────────────────────────────────────
    // The reply echoes the user text, so a word of it is a stop sequence the answer reaches.

    matrix.cell('stop: openai chat stop', upstream, async () => {
      const mark = marker('chatstop');
      const { data, response } = await openai.chat.completions
        .create({ model, stop: ['HALTWORD'], messages: [{ role: 'user', content: `Say ${mark} HALTWORD then more` }] })
        .withResponse();
      expectStopUpstream(upstream, await upstreamBody(mark), 'HALTWORD');
      const text = data.choices[0]?.message.content ?? '';
      expect(data.choices[0]?.finish_reason).toBe('stop');
      expect(text).toContain(mark);
      if (upstream === 'responses') {
        // No stop sequences there: dropped with a warning, so the answer runs on (formats/responses README).
        expect(response.headers.get('x-switchyard-warning')).toMatch(/stop/);
        expect(text).toContain('HALTWORD');
      } else {
        expect(text).not.toContain('HALTWORD');
        expect(response.headers.get('x-switchyard-warning') ?? '').not.toMatch(/stop/);
      }
    });

    matrix.cell('stop: openai chat stream', upstream, async () => {
      const mark = marker('chatstopstream');
      const { data: stream, response } = await openai.chat.completions
        .create({ model, stream: true, stop: 'HALTWORD', messages: [{ role: 'user', content: `Say ${mark} HALTWORD then more` }] })
        .withResponse();
      const { text, finish } = await collectChat(stream);
      expectStopUpstream(upstream, await upstreamBody(mark), 'HALTWORD');
      expect(finish).toBe('stop');
      expect(text).toContain(mark);
      if (upstream === 'responses') {
        expect(response.headers.get('x-switchyard-warning')).toMatch(/stop/);
        expect(text).toContain('HALTWORD');
      } else {
        expect(text).not.toContain('HALTWORD');
      }
    });

    matrix.cell('stop: anthropic stop_sequences', upstream, async () => {
      const mark = marker('msgstop');
      const { data: message, response } = await anthropic.messages
        .create({ model, max_tokens: 256, stop_sequences: ['HALTWORD'], messages: [{ role: 'user', content: `Say ${mark} HALTWORD then more` }] })
        .withResponse();
      expectStopUpstream(upstream, await upstreamBody(mark), 'HALTWORD');
      const text = messageText(message);
      expect(text).toContain(mark);
      if (upstream === 'responses') {
        expect(response.headers.get('x-switchyard-warning')).toMatch(/stop/);
        expect(text).toContain('HALTWORD');
      } else {
        expect(text).not.toContain('HALTWORD');
      }
      // Only a messages upstream says which sequence matched; the others say a plain stop.
      if (upstream === 'messages') {
        expect(message.stop_reason).toBe('stop_sequence');
        expect(message.stop_sequence).toBe('HALTWORD');
      } else {
        expect(message.stop_reason).toBe('end_turn');
        expect(message.stop_sequence).toBeNull();
      }
    });

    matrix.cell('stop: anthropic stream', upstream, async () => {
      const mark = marker('msgstopstream');
      const final = await anthropic.messages
        .stream({ model, max_tokens: 256, stop_sequences: ['HALTWORD'], messages: [{ role: 'user', content: `Say ${mark} HALTWORD then more` }] })
        .finalMessage();
      expectStopUpstream(upstream, await upstreamBody(mark), 'HALTWORD');
      expect(messageText(final)).toContain(mark);
      expect(messageText(final).includes('HALTWORD')).toBe(upstream === 'responses');
      expect(final.stop_reason).toBe(upstream === 'messages' ? 'stop_sequence' : 'end_turn');
      expect(final.stop_sequence).toBe(upstream === 'messages' ? 'HALTWORD' : null);
    });

    matrix.cell('stop: genai stopSequences', upstream, async () => {
      const mark = marker('genstop');
      const response = await genai.models.generateContent({
        model,
        contents: `Say ${mark} HALTWORD then more`,
        config: { stopSequences: ['HALTWORD'] },
      });
      expectStopUpstream(upstream, await upstreamBody(mark), 'HALTWORD');
      expect(response.candidates?.[0]?.finishReason).toBe('STOP');
      expect(genaiText(response)).toContain(mark);
      expect(genaiText(response).includes('HALTWORD')).toBe(upstream === 'responses');
      if (upstream === 'responses') expect(genaiWarning(response)).toMatch(/stop/);
    });

    matrix.cell('stop: genai stream', upstream, async () => {
      const mark = marker('genstopstream');
      const { parts, finish } = await collectGenai(
        await genai.models.generateContentStream({ model, contents: `Say ${mark} HALTWORD then more`, config: { stopSequences: ['HALTWORD'] } }),
      );
      expectStopUpstream(upstream, await upstreamBody(mark), 'HALTWORD');
      expect(finish).toBe('STOP');
      expect(partsText(parts)).toContain(mark);
      expect(partsText(parts).includes('HALTWORD')).toBe(upstream === 'responses');
    });

    // ── max tokens ────────────────────────────────────────────────────────────────────────
    // 40 words asked of the simulator, 5 allowed (16 toward a responses upstream, its minimum).

    matrix.cell('max tokens: openai chat → length', upstream, async () => {
      const mark = marker('chatmax');
      const completion = await openai.chat.completions.create({
        model,
        max_completion_tokens: 5,
        messages: [{ role: 'user', content: `Go on ${mark} [[sim:words=40]]` }],
      });
      expectMaxTokensUpstream(upstream, await upstreamBody(mark), 5, upstream === 'chat-completions');
      expect(completion.choices[0]?.finish_reason).toBe('length');
      expect(words(completion.choices[0]?.message.content ?? '')).toBe(upstream === 'responses' ? 16 : 5);
    });

    matrix.cell('max tokens: openai chat stream → length', upstream, async () => {
      const mark = marker('chatmaxstream');
      const stream = await openai.chat.completions.create({
        model,
        stream: true,
        max_completion_tokens: 5,
        messages: [{ role: 'user', content: `Go on ${mark} [[sim:words=40]]` }],
      });
      const { finish, text } = await collectChat(stream);
      expectMaxTokensUpstream(upstream, await upstreamBody(mark), 5, upstream === 'chat-completions');
      expect(finish).toBe('length');
      expect(words(text)).toBe(upstream === 'responses' ? 16 : 5);
    });

    matrix.cell('max tokens: openai responses → incomplete', upstream, async () => {
      const mark = marker('respmax');
      const response = await openai.responses.create({ model, max_output_tokens: 5, input: `Go on ${mark} [[sim:words=40]]` });
      expectMaxTokensUpstream(upstream, await upstreamBody(mark), 5, upstream === 'responses');
      expect(response.status).toBe('incomplete');
      expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
      expect(words(response.output_text)).toBe(5);
    });

    matrix.cell('max tokens: openai responses.stream → incomplete', upstream, async () => {
      const mark = marker('respmaxstream');
      const stream = openai.responses.stream({ model, max_output_tokens: 5, input: `Go on ${mark} [[sim:words=40]]` });
      const events: string[] = [];
      stream.on('event', (event) => events.push(event.type));
      const final = await stream.finalResponse();
      expectMaxTokensUpstream(upstream, await upstreamBody(mark), 5, upstream === 'responses');
      expect(events.at(-1)).toBe('response.incomplete');
      expect(final.status).toBe('incomplete');
      expect(final.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    });

    matrix.cell('max tokens: anthropic → max_tokens', upstream, async () => {
      const mark = marker('msgmax');
      const message = await anthropic.messages.create({
        model,
        max_tokens: 5,
        messages: [{ role: 'user', content: `Go on ${mark} [[sim:words=40]]` }],
      });
      expectMaxTokensUpstream(upstream, await upstreamBody(mark), 5, upstream === 'messages');
      expect(message.stop_reason).toBe('max_tokens');
      expect(words(messageText(message))).toBe(upstream === 'responses' ? 16 : 5);
    });

    matrix.cell('max tokens: anthropic stream → max_tokens', upstream, async () => {
      const mark = marker('msgmaxstream');
      const final = await anthropic.messages
        .stream({ model, max_tokens: 5, messages: [{ role: 'user', content: `Go on ${mark} [[sim:words=40]]` }] })
        .finalMessage();
      expectMaxTokensUpstream(upstream, await upstreamBody(mark), 5, upstream === 'messages');
      expect(final.stop_reason).toBe('max_tokens');
    });

    matrix.cell('max tokens: genai → MAX_TOKENS', upstream, async () => {
      const mark = marker('genmax');
      const response = await genai.models.generateContent({ model, contents: `Go on ${mark} [[sim:words=40]]`, config: { maxOutputTokens: 5 } });
      expectMaxTokensUpstream(upstream, await upstreamBody(mark), 5, upstream === 'generate-content');
      expect(response.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
      expect(words(genaiText(response))).toBe(upstream === 'responses' ? 16 : 5);
    });

    matrix.cell('max tokens: genai stream → MAX_TOKENS', upstream, async () => {
      const mark = marker('genmaxstream');
      const { finish } = await collectGenai(
        await genai.models.generateContentStream({ model, contents: `Go on ${mark} [[sim:words=40]]`, config: { maxOutputTokens: 5 } }),
      );
      expectMaxTokensUpstream(upstream, await upstreamBody(mark), 5, upstream === 'generate-content');
      expect(finish).toBe('MAX_TOKENS');
    });

    // ── usage: cached and reasoning tokens in each client's own fields (§10.6) ────────────
    // The simulator adds 100 cached input tokens and 7 reasoning tokens on top of its counts.

    const usageKnobs = '[[sim:cached_tokens=100,reasoning_tokens=7]]';

    matrix.cell('usage: openai chat cached + reasoning', upstream, async () => {
      const mark = marker('chatusage');
      const completion = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: `Count ${mark} ${usageKnobs}` }] });
      const usage = completion.usage;
      const visible = words(completion.choices[0]?.message.content ?? '');
      expect(usage?.prompt_tokens_details?.cached_tokens).toBe(100);
      // prompt_tokens includes the cache; the uncached rest is the short prompt.
      expect(usage?.prompt_tokens).toBeGreaterThan(100);
      expect(usage?.prompt_tokens).toBeLessThan(150);
      expect(usage?.completion_tokens_details?.reasoning_tokens).toBe(7);
      expect(usage?.completion_tokens).toBe(visible + 7);
      expect(usage?.total_tokens).toBe((usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0));
    });

    matrix.cell('usage: openai chat stream usage chunk', upstream, async () => {
      const mark = marker('chatusagestream');
      const stream = await openai.chat.completions.create({
        model,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: `Count ${mark} ${usageKnobs}` }],
      });
      const { usage, text } = await collectChat(stream);
      expect(usage?.prompt_tokens_details?.cached_tokens).toBe(100);
      expect(usage?.prompt_tokens).toBeGreaterThan(100);
      expect(usage?.completion_tokens_details?.reasoning_tokens).toBe(7);
      expect(usage?.completion_tokens).toBe(words(text) + 7);
      expect(usage?.total_tokens).toBe((usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0));
    });

    matrix.cell('usage: openai chat stream without include_usage', upstream, async () => {
      const mark = marker('chatnousage');
      const stream = await openai.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: `Count ${mark} ${usageKnobs}` }] });
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      // Usage is forced on upstream (to bill) but the client did not ask: no `choices: []` chunk, no usage.
      expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
      expect(chunks.some((chunk) => chunk.usage != null)).toBe(false);
      const body = await upstreamBody(mark);
      if (upstream === 'chat-completions') expect(body.stream_options).toEqual({ include_usage: true });
    });

    matrix.cell('usage: openai responses cached + reasoning', upstream, async () => {
      const mark = marker('respusage');
      const response = await openai.responses.create({ model, input: `Count ${mark} ${usageKnobs}` });
      const usage = response.usage;
      expect(usage?.input_tokens_details.cached_tokens).toBe(100);
      expect(usage?.input_tokens).toBeGreaterThan(100);
      expect(usage?.input_tokens).toBeLessThan(150);
      expect(usage?.output_tokens_details.reasoning_tokens).toBe(7);
      expect(usage?.output_tokens).toBe(words(response.output_text) + 7);
      expect(usage?.total_tokens).toBe((usage?.input_tokens ?? 0) + (usage?.output_tokens ?? 0));
    });

    matrix.cell('usage: openai responses.stream completed usage', upstream, async () => {
      const mark = marker('respusagestream');
      const final = await openai.responses.stream({ model, input: `Count ${mark} ${usageKnobs}` }).finalResponse();
      expect(final.usage?.input_tokens_details.cached_tokens).toBe(100);
      expect(final.usage?.input_tokens).toBeGreaterThan(100);
      expect(final.usage?.output_tokens_details.reasoning_tokens).toBe(7);
      expect(final.usage?.output_tokens).toBe(words(final.output_text) + 7);
    });

    matrix.cell('usage: anthropic cache_read + output', upstream, async () => {
      const mark = marker('msgusage');
      const message = await anthropic.messages.create({ model, max_tokens: 256, messages: [{ role: 'user', content: `Count ${mark} ${usageKnobs}` }] });
      // input_tokens excludes the cache (protocols.md §5.4); output_tokens includes thinking.
      expect(message.usage.cache_read_input_tokens).toBe(100);
      expect(message.usage.input_tokens).toBeGreaterThan(0);
      expect(message.usage.input_tokens).toBeLessThan(50);
      expect(message.usage.output_tokens).toBe(words(messageText(message)) + 7);
    });

    matrix.cell('usage: anthropic stream usage', upstream, async () => {
      const mark = marker('msgusagestream');
      const final = await anthropic.messages
        .stream({ model, max_tokens: 256, messages: [{ role: 'user', content: `Count ${mark} ${usageKnobs}` }] })
        .finalMessage();
      expect(final.usage.cache_read_input_tokens).toBe(100);
      expect(final.usage.input_tokens).toBeGreaterThan(0);
      expect(final.usage.input_tokens).toBeLessThan(50);
      expect(final.usage.output_tokens).toBe(words(messageText(final)) + 7);
    });

    matrix.cell('usage: genai cachedContent + thoughts', upstream, async () => {
      const mark = marker('genusage');
      const response = await genai.models.generateContent({ model, contents: `Count ${mark} ${usageKnobs}` });
      const usage = response.usageMetadata;
      // promptTokenCount includes the cache; candidatesTokenCount excludes thoughts (§6.3).
      expect(usage?.cachedContentTokenCount).toBe(100);
      expect(usage?.promptTokenCount).toBeGreaterThan(100);
      expect(usage?.promptTokenCount).toBeLessThan(150);
      expect(usage?.thoughtsTokenCount).toBe(7);
      expect(usage?.candidatesTokenCount).toBe(words(genaiText(response)));
      expect(usage?.totalTokenCount).toBe((usage?.promptTokenCount ?? 0) + (usage?.candidatesTokenCount ?? 0) + 7);
    });

    matrix.cell('usage: genai stream last usageMetadata', upstream, async () => {
      const mark = marker('genusagestream');
      const { usage, parts } = await collectGenai(await genai.models.generateContentStream({ model, contents: `Count ${mark} ${usageKnobs}` }));
      expect(usage?.cachedContentTokenCount).toBe(100);
      expect(usage?.promptTokenCount).toBeGreaterThan(100);
      expect(usage?.thoughtsTokenCount).toBe(7);
      expect(usage?.candidatesTokenCount).toBe(words(partsText(parts)));
      expect(usage?.totalTokenCount).toBe((usage?.promptTokenCount ?? 0) + (usage?.candidatesTokenCount ?? 0) + 7);
    });

    // ── generate-content image output ─────────────────────────────────────────────────────

    matrix.cell('image output: genai responseModalities', upstream, async () => {
      const mark = marker('genimageout');
      const call = genai.models.generateContent({ model, contents: `Draw ${mark}`, config: { responseModalities: ['TEXT', 'IMAGE'] } });
      if (upstream !== 'generate-content') {
        // A text-only model: a clear 400 rather than a silent text answer (docs/translation.md).
        const error = await rejectionOf(call);
        expect(error).toBeInstanceOf(ApiError);
        expect((error as ApiError).status).toBe(400);
        expect((error as ApiError).message).toMatch(/INVALID_ARGUMENT/);
        expect((error as ApiError).message).toMatch(/text only/);
        await expect(upstreamBody(mark)).rejects.toThrow(/no upstream request/);
        return;
      }
      const response = await call;
      const body = await upstreamBody(mark);
      const images = (response.candidates?.[0]?.content?.parts ?? []).filter((part) => part.inlineData !== undefined);
      expect((body.generationConfig as Json).responseModalities).toEqual(['TEXT', 'IMAGE']);
      expect(images).toHaveLength(1);
      expect(images[0]?.inlineData?.mimeType).toBe('image/png');
      expect(Buffer.from(images[0]?.inlineData?.data ?? '', 'base64').subarray(1, 4).toString()).toBe('PNG');
      expect(genaiText(response)).toContain(mark);
    });

    matrix.cell('image output: genai stream', upstream, async () => {
      const mark = marker('genimageoutstream');
      const call = genai.models.generateContentStream({ model, contents: `Draw ${mark}`, config: { responseModalities: ['TEXT', 'IMAGE'] } });
      if (upstream !== 'generate-content') {
        const error = await rejectionOf(call.then(collectGenai));
        expect(error).toBeInstanceOf(ApiError);
        expect((error as ApiError).status).toBe(400);
        return;
      }
      const { parts } = await collectGenai(await call);
      const images = parts.filter((part) => part.inlineData !== undefined);
      expect(images).toHaveLength(1);
      expect(images[0]?.inlineData).toEqual({ mimeType: 'image/png', data: expect.stringMatching(/^iVBOR/) });
      expect(partsText(parts)).toContain(mark);
    });

    // ── parallel tool calls, streamed, then their results ─────────────────────────────────
    // Two calls; chat, responses and messages upstreams stream the arguments in 3 fragments,
    // Gemini sends each call whole.

    const fragmented = upstream !== 'generate-content';

    matrix.cell('tools: openai chat stream 2 calls + results', upstream, async () => {
      const mark = marker('chattools');
      const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', parameters: weatherSchema } }];
      const ask: OpenAI.ChatCompletionMessageParam = { role: 'user', content: `Oslo and Bergen ${mark} [[sim:tool_calls=2]]` };
      const first = await collectChat(await openai.chat.completions.create({ model, stream: true, tools, messages: [ask] }));
      expect(first.finish).toBe('tool_calls');
      const calls = [...first.calls.values()];
      expect(calls).toHaveLength(2);
      for (const call of calls) {
        expect(call.name).toBe('get_weather');
        expect(JSON.parse(call.args)).toEqual({ city: 'sample' });
        if (fragmented) expect(call.fragments).toBeGreaterThan(1);
      }
      expect(new Set(calls.map((call) => call.id)).size).toBe(2);
      const second = await collectChat(
        await openai.chat.completions.create({
          model,
          stream: true,
          tools,
          messages: [
            ask,
            { role: 'assistant', content: null, tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.args } })) },
            { role: 'tool', tool_call_id: calls[0]?.id ?? '', content: 'Oslo: 3 degrees' },
            { role: 'tool', tool_call_id: calls[1]?.id ?? '', content: 'Bergen: 5 degrees' },
          ],
        }),
      );
      expect(second.finish).toBe('stop');
      expect(second.text).toContain('Oslo: 3 degrees');
      expectTwoResultsUpstream(upstream, await upstreamBody(mark), ['Oslo: 3 degrees', 'Bergen: 5 degrees']);
      });

    matrix.cell('tools: openai responses.stream 2 function_call items + results', upstream, async () => {
      const mark = marker('resptools');
      const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'get_weather', parameters: weatherSchema, strict: false }];
      const ask: OpenAI.Responses.ResponseInputItem = { role: 'user', content: `Oslo and Bergen ${mark} [[sim:tool_calls=2]]` };
      const stream = openai.responses.stream({ model, tools, input: [ask] });
      const added: string[] = [];
      const deltas = new Map<string, number>();
      const done = new Map<string, string>();
      stream.on('response.output_item.added', (event) => {
        if (event.item.type === 'function_call') added.push(event.item.id ?? '');
      });
      stream.on('response.function_call_arguments.delta', (event) => deltas.set(event.item_id, (deltas.get(event.item_id) ?? 0) + 1));
      stream.on('response.function_call_arguments.done', (event) => done.set(event.item_id, event.arguments));
      const first = await stream.finalResponse();
      const calls = first.output.filter((item) => item.type === 'function_call');
      expect(calls).toHaveLength(2);
      expect(added).toEqual(calls.map((call) => call.id));
      for (const call of calls) {
        expect(call.name).toBe('get_weather');
        expect(JSON.parse(call.arguments)).toEqual({ city: 'sample' });
        expect(done.get(call.id ?? '')).toBe(call.arguments);
        expect(deltas.get(call.id ?? '')).toBeGreaterThan(fragmented ? 1 : 0);
      }
      expect(new Set(calls.map((call) => call.call_id)).size).toBe(2);
      const second = await openai.responses
        .stream({
          model,
          tools,
          input: [
            ask,
            ...calls.map((call) => ({ type: 'function_call' as const, call_id: call.call_id, name: call.name, arguments: call.arguments })),
            { type: 'function_call_output', call_id: calls[0]?.call_id ?? '', output: 'Oslo: 3 degrees' },
            { type: 'function_call_output', call_id: calls[1]?.call_id ?? '', output: 'Bergen: 5 degrees' },
          ],
        })
        .finalResponse();
      expect(second.status).toBe('completed');
      expect(second.output_text).toContain('Oslo: 3 degrees');
      expectTwoResultsUpstream(upstream, await upstreamBody(mark), ['Oslo: 3 degrees', 'Bergen: 5 degrees']);
    });

    matrix.cell('tools: anthropic stream 2 tool_use + results', upstream, async () => {
      const mark = marker('msgtools');
      const tools: Anthropic.Tool[] = [{ name: 'get_weather', description: 'Weather now', input_schema: weatherSchema }];
      const ask: Anthropic.MessageParam = { role: 'user', content: `Oslo and Bergen ${mark} [[sim:tool_calls=2]]` };
      const stream = anthropic.messages.stream({ model, max_tokens: 256, tools, messages: [ask] });
      const fragments = new Map<number, string[]>();
      const started: number[] = [];
      stream.on('streamEvent', (event) => {
        if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') started.push(event.index);
        if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta' && event.delta.partial_json !== '') {
          fragments.set(event.index, [...(fragments.get(event.index) ?? []), event.delta.partial_json]);
        }
      });
      const first = await stream.finalMessage();
      expect(first.stop_reason).toBe('tool_use');
      const calls = first.content.filter((block) => block.type === 'tool_use');
      expect(calls).toHaveLength(2);
      expect(started).toHaveLength(2);
      for (const [position, call] of calls.entries()) {
        expect(call.name).toBe('get_weather');
        expect(call.input).toEqual({ city: 'sample' });
        const pieces = fragments.get(started[position] ?? -1) ?? [];
        expect(JSON.parse(pieces.join(''))).toEqual({ city: 'sample' });
        if (fragmented) expect(pieces.length).toBeGreaterThan(1);
      }
      expect(new Set(calls.map((call) => call.id)).size).toBe(2);
      const second = await anthropic.messages
        .stream({
          model,
          max_tokens: 256,
          tools,
          messages: [
            ask,
            { role: 'assistant', content: first.content },
            {
              role: 'user',
              content: [
                { type: 'tool_result', tool_use_id: calls[0]?.id ?? '', content: 'Oslo: 3 degrees' },
                { type: 'tool_result', tool_use_id: calls[1]?.id ?? '', content: 'Bergen: 5 degrees' },
              ],
            },
          ],
        })
        .finalMessage();
      expect(second.stop_reason).toBe('end_turn');
      expect(messageText(second)).toContain('Oslo: 3 degrees');
      expectTwoResultsUpstream(upstream, await upstreamBody(mark), ['Oslo: 3 degrees', 'Bergen: 5 degrees']);
    });

    matrix.cell('tools: genai stream 2 functionCalls + results', upstream, async () => {
      const mark = marker('gentools');
      const config = { tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather now', parametersJsonSchema: weatherSchema }] }] };
      const ask: Content = { role: 'user', parts: [{ text: `Oslo and Bergen ${mark} [[sim:tool_calls=2]]` }] };
      const first = await collectGenai(await genai.models.generateContentStream({ model, config, contents: [ask] }));
      const calls = first.parts.filter((part) => part.functionCall !== undefined);
      expect(first.finish).toBe('STOP');
      expect(calls).toHaveLength(2);
      for (const part of calls) {
        expect(part.functionCall?.name).toBe('get_weather');
        expect(part.functionCall?.args).toEqual({ city: 'sample' });
      }
      const ids = calls.map((part) => part.functionCall?.id ?? '');
      expect(new Set(ids).size).toBe(2);
      for (const id of ids) expect(id).not.toBe('');
      const second = await collectGenai(
        await genai.models.generateContentStream({
          model,
          config,
          contents: [
            ask,
            { role: 'model', parts: first.parts.filter((part) => part.text !== '' || part.functionCall !== undefined) },
            {
              role: 'user',
              parts: [
                { functionResponse: { id: ids[0], name: 'get_weather', response: { output: 'Oslo: 3 degrees' } } },
                { functionResponse: { id: ids[1], name: 'get_weather', response: { output: 'Bergen: 5 degrees' } } },
              ],
            },
          ],
        }),
      );
      expect(second.finish).toBe('STOP');
      expect(partsText(second.parts)).toContain('Oslo: 3 degrees');
      expectTwoResultsUpstream(upstream, await upstreamBody(mark), ['Oslo: 3 degrees', 'Bergen: 5 degrees']);
    });

    matrix.cell('tools: openai chat parallel_tool_calls false', upstream, async () => {
      const mark = marker('chatnoparallel');
      const { data, response } = await openai.chat.completions
        .create({
          model,
          parallel_tool_calls: false,
          tools: [{ type: 'function', function: { name: 'get_weather', parameters: weatherSchema } }],
          messages: [{ role: 'user', content: `Oslo and Bergen ${mark} [[sim:tool_calls=2]]` }],
        })
        .withResponse();
      const body = await upstreamBody(mark);
      const calls = data.choices[0]?.message.tool_calls ?? [];
      if (upstream === 'generate-content') {
        // Gemini has no such knob: dropped with a warning (formats/generate-content convert-tools.ts).
        expect(response.headers.get('x-switchyard-warning')).toMatch(/parallel/);
        expect(calls).toHaveLength(2);
        return;
      }
      if (upstream === 'messages') expect(body.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
      else expect(body.parallel_tool_calls).toBe(false);
      expect(calls).toHaveLength(1);
    });

    matrix.cell('tool results: anthropic is_error with text + image', upstream, async () => {
      const mark = marker('msgtoolerror');
      const tools: Anthropic.Tool[] = [{ name: 'get_weather', input_schema: weatherSchema }];
      const ask: Anthropic.MessageParam = { role: 'user', content: `Weather? ${mark}` };
      const first = await anthropic.messages.create({ model, max_tokens: 256, tools, messages: [ask] });
      const call = first.content.find((block) => block.type === 'tool_use');
      expect(call).toBeDefined();
      const { data: second, response } = await anthropic.messages
        .create({
          model,
          max_tokens: 256,
          tools,
          messages: [
            ask,
            { role: 'assistant', content: first.content },
            {
              role: 'user',
              content: [
                {
                  type: 'tool_result',
                  tool_use_id: call?.id ?? '',
                  is_error: true,
                  content: [
                    { type: 'text', text: 'city not found' },
                    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
                  ],
                },
              ],
            },
          ],
        })
        .withResponse();
      // Toward chat the image becomes a user turn after the tool message, so the (simulated)
      // model sees a user turn last and may call the tool again: only the others must answer.
      if (upstream !== 'chat-completions') {
        expect(second.stop_reason).toBe('end_turn');
        expect(messageText(second)).toContain('city not found');
      }
      const body = await upstreamBody(mark);
      const warning = response.headers.get('x-switchyard-warning') ?? '';
      switch (upstream) {
        case 'chat-completions': {
          // Tool messages hold text: the image follows them in a user message; no error flag, so a warning.
          const messages = arrayOf(body.messages);
          const toolAt = messages.findIndex((message) => message.role === 'tool');
          expect(messages[toolAt]).toMatchObject({ tool_call_id: call?.id, content: 'city not found' });
          expect(messages[toolAt + 1]).toMatchObject({ role: 'user', content: [{ type: 'image_url', image_url: { url: PNG_DATA_URL } }] });
          expect(warning).toMatch(/error flag/);
          expect(warning).toMatch(/Media in tool results/);
          break;
        }
        case 'responses': {
          const output = arrayOf(body.input).find((item) => item.type === 'function_call_output');
          expect(output).toMatchObject({
            call_id: call?.id,
            output: [
              { type: 'input_text', text: 'city not found' },
              { type: 'input_image', image_url: PNG_DATA_URL },
            ],
          });
          expect(warning).toMatch(/error flag/);
          break;
        }
        case 'messages': {
          const result = arrayOf(arrayOf(body.messages).at(-1)?.content)[0];
          expect(result).toMatchObject({ type: 'tool_result', is_error: true });
          break;
        }
        case 'generate-content': {
          const part = arrayOf(arrayOf(body.contents).at(-1)?.parts)[0];
          expect(part?.functionResponse).toMatchObject({
            name: 'get_weather',
            response: { error: 'city not found' },
            parts: [{ inlineData: { mimeType: 'image/png', data: PNG } }],
          });
          break;
        }
      }
    });

    // ── reasoning and two parallel calls in one streamed answer ───────────────────────────
    // Thinking (or its absence) must not disturb block/item/part numbering of the calls.

    matrix.cell('tools+reasoning: openai chat stream (opt-in reasoning_content)', upstream, async () => {
      const mark = marker('chatthinktools');
      const stream = await openai.chat.completions.create(
        {
          model,
          stream: true,
          reasoning_effort: 'low',
          tools: [{ type: 'function', function: { name: 'get_weather', parameters: weatherSchema } }],
          messages: [{ role: 'user', content: `Oslo and Bergen ${mark} [[sim:tool_calls=2]]` }],
        },
        { headers: { 'x-switchyard-include-reasoning': 'true' } },
      );
      const { calls, finish, reasoning, text } = await collectChat(stream);
      expect(finish).toBe('tool_calls');
      expect([...calls.keys()]).toEqual([0, 1]);
      for (const call of calls.values()) expect(JSON.parse(call.args)).toEqual({ city: 'sample' });
      expect(text).toBe('');
      if (upstream !== 'generate-content') expect(reasoning).toContain('Thinking about');
    });

    matrix.cell('tools+reasoning: openai responses.stream', upstream, async () => {
      const mark = marker('respthinktools');
      const stream = openai.responses.stream({
        model,
        reasoning: { effort: 'low', summary: 'auto' },
        tools: [{ type: 'function', name: 'get_weather', parameters: weatherSchema, strict: false }],
        input: `Oslo and Bergen ${mark} [[sim:tool_calls=2]]`,
      });
      const indices: Array<[string, number]> = [];
      stream.on('response.output_item.added', (event) => indices.push([event.item.type, event.output_index]));
      const final = await stream.finalResponse();
      expect(indices).toEqual([
        ['reasoning', 0],
        ['function_call', 1],
        ['function_call', 2],
      ]);
      expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'function_call', 'function_call']);
      for (const item of final.output) {
        if (item.type === 'function_call') expect(JSON.parse(item.arguments)).toEqual({ city: 'sample' });
        if (item.type === 'reasoning') expect(item.summary.map((part) => part.text).join('')).toContain('Thinking about');
      }
    });

    matrix.cell('tools+reasoning: anthropic stream', upstream, async () => {
      const mark = marker('msgthinktools');
      const stream = anthropic.messages.stream({
        model,
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        tools: [{ name: 'get_weather', input_schema: weatherSchema }],
        messages: [{ role: 'user', content: `Oslo and Bergen ${mark} [[sim:tool_calls=2]]` }],
      });
      const starts: Array<[string, number]> = [];
      stream.on('streamEvent', (event) => {
        if (event.type === 'content_block_start') starts.push([event.content_block.type, event.index]);
      });
      const final = await stream.finalMessage();
      const expected: Array<[string, number]> =
        upstream === 'messages'
          ? [
              ['thinking', 0],
              ['tool_use', 1],
              ['tool_use', 2],
            ]
          : [
              ['tool_use', 0],
              ['tool_use', 1],
            ];
      expect(starts).toEqual(expected);
      expect(final.stop_reason).toBe('tool_use');
      expect(final.content.map((block) => block.type)).toEqual(expected.map(([type]) => type));
      for (const block of final.content) if (block.type === 'tool_use') expect(block.input).toEqual({ city: 'sample' });
    });

    matrix.cell('tools+reasoning: genai stream', upstream, async () => {
      const mark = marker('genthinktools');
      const { parts, finish } = await collectGenai(
        await genai.models.generateContentStream({
          model,
          contents: `Oslo and Bergen ${mark} [[sim:tool_calls=2]]`,
          config: {
            thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 },
            tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: weatherSchema }] }],
          },
        }),
      );
      expect(finish).toBe('STOP');
      const kinds = parts
        .filter((part) => part.text !== '' || part.functionCall !== undefined)
        .map((part) => (part.thought === true ? 'thought' : part.functionCall ? 'call' : 'text'));
      // Thoughts first, then the two calls, no answer text.
      expect(kinds.filter((kind) => kind !== 'thought')).toEqual(['call', 'call']);
      expect(kinds[0]).toBe('thought');
      expect(kinds.lastIndexOf('thought')).toBeLessThan(kinds.indexOf('call'));
      for (const part of parts) if (part.functionCall) expect(part.functionCall.args).toEqual({ city: 'sample' });
    });
  }
});
