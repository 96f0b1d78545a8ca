/**
 * One SSE event as text. `event` is written only when given: chat-completions and
 * generate-content streams must not carry `event:` lines (protocols.md §2).
 */
export function formatSseEvent(data: string, event?: string): string {
  return event === undefined ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`;
}
