import type { FormatId } from '@switchyard/canonical';

/** What a public request asks for, read from its method and path alone (no body parsing). */
export type Operation =
  | 'generate'
  | 'count-tokens'
  | 'embeddings'
  | 'models-list'
  | 'models-get'
  | 'response-get'
  | 'response-delete';

export interface Route {
  format: FormatId;
  operation: Operation;
  /** Model from the URL (generate-content paths, model retrieval). */
  model?: string;
  /** Streaming chosen by the URL (`:streamGenerateContent`). */
  stream?: boolean;
  /** `/v1/responses/{id}`. */
  resourceId?: string;
  /** The generate-content URL method (`embedContent` vs `batchEmbedContents`). */
  method?: string;
}

const GENERATE_CONTENT_METHODS: Record<string, { operation: Operation; stream?: boolean }> = {
  generateContent: { operation: 'generate', stream: false },
  streamGenerateContent: { operation: 'generate', stream: true },
  countTokens: { operation: 'count-tokens' },
  embedContent: { operation: 'embeddings' },
  batchEmbedContents: { operation: 'embeddings' },
};

/**
 * Reads `models/{model}:{method}` — the path segment after `/v1beta/models/` or `/v1/models/`
 * (protocols.md §1.1: a colon, not a slash, separates the method).
 */
export function parseGenerateContentTarget(target: string): Route | undefined {
  const colon = target.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const method = target.slice(colon + 1);
  const known = GENERATE_CONTENT_METHODS[method];
  if (known === undefined) return undefined;
  const route: Route = { format: 'generate-content', operation: known.operation, model: target.slice(0, colon), method };
  if (known.stream !== undefined) route.stream = known.stream;
  return route;
}

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * `GET /v1/models` is shared by three vendors; the style is keyed on the version header, not
 * the credential header (protocols.md §8): the messages SDK in token mode sends Bearer too.
 */
export function detectModelListFormat(headers: Headers, hasQueryKey: boolean): FormatId {
  if (hasQueryKey || header(headers, 'x-vendorb-api-key') !== undefined || header(headers, 'x-goog-api-key') !== undefined) {
    return 'generate-content';
  }
  if (header(headers, 'vendora-version') !== undefined || header(headers, 'anthropic-version') !== undefined) return 'messages';
  return 'chat-completions';
}

/**
 * The client's API key, from wherever its format carries it (design §1). Neutral names and
 * the vendor SDKs' real names are both accepted.
 */
export function extractApiKey(format: FormatId, headers: Headers, queryKey: string | undefined): string | undefined {
  const authorization = header(headers, 'authorization');
  const bearer =
    authorization !== undefined && authorization.length > 7 && authorization.slice(0, 7).toLowerCase() === 'bearer '
      ? authorization.slice(7).trim()
      : undefined;
  switch (format) {
    case 'messages':
      return header(headers, 'x-api-key') ?? bearer;
    case 'generate-content':
      return header(headers, 'x-vendorb-api-key') ?? header(headers, 'x-goog-api-key') ?? queryKey ?? bearer;
    default:
      return bearer;
  }
}

/** The messages version header: the neutral name wins over the vendor alias (protocols.md §1.2 rule 1). */
export function messagesVersion(headers: Headers): string | undefined {
  return header(headers, 'vendora-version') ?? header(headers, 'anthropic-version');
}
