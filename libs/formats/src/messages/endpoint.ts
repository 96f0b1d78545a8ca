/**
 * Upstream addressing (protocols.md §1.1): a messages provider's base URL is the origin, as
 * @anthropic-ai/sdk takes it, so the path carries `/v1`. Streaming uses the same path.
 */
export function generatePath(): string {
  return '/v1/messages';
}

/** Toward real upstreams the real header names are sent, never the neutral `vendora-version` (§1.2 rule 3). */
export function authHeaders(apiKey: string): Record<string, string> {
  return { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' };
}
