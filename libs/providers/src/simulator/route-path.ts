import type { VendorFormat } from './render-vendor-error.ts';

export type Endpoint =
  | 'chat-completions'
  | 'responses'
  | 'messages'
  | 'messages-count-tokens'
  | 'embeddings'
  | 'models'
  | 'gemini-models'
  | 'generate-content'
  | 'stream-generate-content'
  | 'count-tokens'
  | 'embed-content'
  | 'batch-embed-contents';

export interface Route {
  endpoint: Endpoint;
  /** Whose error envelope this path answers in. */
  format: VendorFormat;
  /** The model from a generate-content URL; empty elsewhere (it is in the body). */
  model: string;
}

const POST_ROUTES: Record<string, Route> = {
  '/v1/chat/completions': { endpoint: 'chat-completions', format: 'chat-completions', model: '' },
  '/v1/responses': { endpoint: 'responses', format: 'responses', model: '' },
  '/v1/messages': { endpoint: 'messages', format: 'messages', model: '' },
  '/v1/messages/count_tokens': { endpoint: 'messages-count-tokens', format: 'messages', model: '' },
  '/v1/embeddings': { endpoint: 'embeddings', format: 'chat-completions', model: '' },
};

const GEMINI_METHODS: Record<string, Endpoint> = {
  generateContent: 'generate-content',
  streamGenerateContent: 'stream-generate-content',
  countTokens: 'count-tokens',
  embedContent: 'embed-content',
  batchEmbedContents: 'batch-embed-contents',
};

// `models/{id}:method`, under v1beta and (js-genai 3.x default) v1 (protocols.md §1.1–1.2).
const GEMINI_PATH = /^\/v1(?:beta)?\/models\/([^/:]+):([A-Za-z]+)$/;

/** The endpoint for a method and path without its query, or undefined for a 404. */
export function routePath(method: string | undefined, path: string): Route | undefined {
  if (method === 'GET') {
    if (path === '/v1/models') return { endpoint: 'models', format: 'chat-completions', model: '' };
    if (path === '/v1beta/models') return { endpoint: 'gemini-models', format: 'generate-content', model: '' };
    return undefined;
  }
  if (method !== 'POST') return undefined;
  const fixed = POST_ROUTES[path];
  if (fixed !== undefined) return fixed;
  const match = GEMINI_PATH.exec(path);
  const endpoint = match === null ? undefined : GEMINI_METHODS[match[2] as string];
  if (match === null || endpoint === undefined) return undefined;
  return { endpoint, format: 'generate-content', model: decodeURIComponent(match[1] as string) };
}
