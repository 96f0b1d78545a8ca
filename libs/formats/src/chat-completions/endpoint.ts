/**
 * Upstream addressing (protocols.md §1.1): the provider base URL ends with `/v1`, as the
 * openai SDK's does, so paths are relative to it. Streaming uses the same path.
 */
export function generatePath(): string {
  return '/chat/completions';
}

export const EMBEDDINGS_PATH = '/embeddings';

export function requestHeaders(apiKey: string | undefined): Record<string, string> {
  return apiKey === undefined ? {} : { Authorization: `Bearer ${apiKey}` };
}
