/**
 * Where a Responses upstream is called (protocols.md §1.1). The provider base URL ends with
 * `/v1`, as the openai SDK takes it; streaming uses the same path with `"stream": true`.
 */
export function generatePath(): string {
  return '/responses';
}

export function requestHeaders(apiKey: string | undefined): Record<string, string> {
  return apiKey === undefined ? {} : { Authorization: `Bearer ${apiKey}` };
}
