import { readFileSync } from 'node:fs';
import { createSseParser, type SseEvent } from '@switchyard/sse';

/** A recorded-shape stream capture beside this file, as text. */
export function readFixture(name: string): string {
  return readFileSync(new URL(name, import.meta.url), 'utf8');
}

/** SSE text → events through the same parser the router uses. */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createSseParser((event) => events.push(event));
  parser.push(new TextEncoder().encode(text));
  parser.end();
  return events;
}
