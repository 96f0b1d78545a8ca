/**
 * Upstream addressing (protocols.md §1.1): a messages provider's base URL is the origin, as
 * @anthropic-ai/sdk takes it, so the path carries `/v1`. Streaming uses the same path.
 */
export function generatePath(): string {
  return '/v1/messages';
}

/**
 * Toward real upstreams the real header names are sent, never the neutral `vendora-version`
 * (§1.2 rule 3). The version header goes on every call, keyed or not: the API refuses requests
 * without it.
 */
export function requestHeaders(apiKey: string | undefined): Record<string, string> {
  return apiKey === undefined ? { 'anthropic-version': '2023-06-01' } : { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' };
}
