import { readFileSync } from 'node:fs';
import type { StreamPart } from '@switchyard/canonical';
import { createSseParser } from '@switchyard/sse';
import type { SseEvent } from '@switchyard/sse';
import type { StreamDecoder, StreamEncoder } from '../../wire-format.ts';

/** Fixture replays for the stream tests: raw SSE text as the vendor sent it, parsed like the router does. */
export function readFixture(name: string): string {
  return readFileSync(new URL(name, import.meta.url), 'utf8');
}

export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createSseParser((event) => events.push(event));
  parser.push(new TextEncoder().encode(text));
  parser.end();
  return events;
}

export function decodeAll(decoder: StreamDecoder, events: readonly SseEvent[]): StreamPart[] {
  const parts = events.flatMap((event) => decoder.push(event));
  return [...parts, ...decoder.end()];
}

export function encodeAll(encoder: StreamEncoder, parts: readonly StreamPart[]): string {
  return parts.map((part) => encoder.push(part)).join('');
}
