/**
 * Where a generate call goes on a Gemini upstream, relative to its origin (protocols.md §1.1).
 * Streaming needs `alt=sse`: without it Google streams one JSON array instead of events.
 */
export function generatePath(model: string, stream: boolean): string {
  return stream ? `/v1beta/models/${model}:streamGenerateContent?alt=sse` : `/v1beta/models/${model}:generateContent`;
}

/** The real header name (never `?key=`, which would leak the key into access logs). */
export function requestHeaders(apiKey: string | undefined): Record<string, string> {
  return apiKey === undefined ? {} : { 'x-goog-api-key': apiKey };
}
