import { readFileSync } from 'node:fs';
import { createSseParser, type SseEvent } from '@switchyard/sse';

/** SSE text → events, through the same parser the router uses on upstream bytes. */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createSseParser((event) => events.push(event));
  parser.push(new TextEncoder().encode(text));
  parser.end();
  return events;
}

/** A recorded-shape capture from this folder, as events. */
export function readFixtureEvents(name: string): SseEvent[] {
  return parseSse(readFileSync(new URL(name, import.meta.url), 'utf8'));
}
