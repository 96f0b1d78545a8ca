import { embedText, encodeFloat32Base64 } from './embed-text.ts';
import { asArray, asNumber, asObject, asString } from './json-access.ts';
import type { JsonObject } from './json-access.ts';
import type { Endpoint } from './route-path.ts';

const DEFAULT_DIMENSIONS = 8;

/** `input` is a string, strings, a token array or token arrays; tokens are hashed as text. */
function openAiInputs(input: unknown): string[] {
  if (typeof input === 'string') return [input];
  const items = asArray(input);
  if (items.length > 0 && items.every((item) => typeof item === 'number')) return [JSON.stringify(items)];
  return items.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
}

/** POST /v1/embeddings, honouring `encoding_format: "base64"` (protocols.md §9). */
function renderOpenAiEmbeddings(body: JsonObject): string {
  const dimensions = asNumber(body.dimensions) ?? DEFAULT_DIMENSIONS;
  const base64 = body.encoding_format === 'base64';
  const inputs = openAiInputs(body.input);
  const tokens = inputs.reduce((sum, text) => sum + Math.max(1, Math.ceil(text.length / 4)), 0);
  return JSON.stringify({
    object: 'list',
    model: asString(body.model) ?? '',
    data: inputs.map((text, index) => {
      const vector = embedText(text, dimensions);
      return { object: 'embedding', index, embedding: base64 ? encodeFloat32Base64(vector) : vector };
    }),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

function geminiEmbedding(request: JsonObject | undefined): { values: number[] } {
  const text = asArray(asObject(request?.content)?.parts)
    .map((part) => asString(asObject(part)?.text) ?? '')
    .join(' ');
  return { values: embedText(text, asNumber(request?.outputDimensionality) ?? DEFAULT_DIMENSIONS) };
}

/**
 * The embeddings answer of an embedding endpoint: OpenAI's list, Gemini's `{embedding}` for
 * :embedContent or `{embeddings: […]}` for :batchEmbedContents (one per request item).
 */
export function renderEmbeddings(endpoint: Endpoint, body: JsonObject): string {
  if (endpoint === 'embed-content') return JSON.stringify({ embedding: geminiEmbedding(body) });
  if (endpoint === 'batch-embed-contents') {
    return JSON.stringify({ embeddings: asArray(body.requests).map((request) => geminiEmbedding(asObject(request))) });
  }
  return renderOpenAiEmbeddings(body);
}
