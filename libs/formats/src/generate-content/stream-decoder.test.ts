import { readFileSync } from 'node:fs';
import type { StreamPart } from '@switchyard/canonical';
import { createSseParser, type SseEvent } from '@switchyard/sse';
import { describe, expect, it } from 'vitest';
import { extractStreamUsage } from './extract-stream-usage.ts';
import { createStreamDecoder } from './stream-decoder.ts';

function readFixture(name: string): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createSseParser((event) => events.push(event));
  parser.push(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url)));
  parser.end();
  return events;
}

function decode(events: SseEvent[]): StreamPart[] {
  const decoder = createStreamDecoder();
  return [...events.flatMap((event) => decoder.push(event)), ...decoder.end()];
}

const start = (id: string): StreamPart => ({ type: 'start', id, model: 'gemini-2.5-flash', created: expect.any(Number) });

describe('createStreamDecoder', () => {
  it('should replay a text stream with the last usage snapshot', () => {
    expect(decode(readFixture('text.chunks.txt'))).toEqual([
      start('r1'),
      { type: 'text-delta', text: 'Cold' },
      { type: 'text-delta', text: ' and' },
      { type: 'text-delta', text: ' clear.' },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'STOP' }, usage: { inputTokens: 60, outputTokens: 5 } },
    ]);
  });

  it('should replay two whole parallel function calls as complete tool calls and finish with tool-calls', () => {
    expect(decode(readFixture('function-calls.chunks.txt'))).toEqual([
      start('r2'),
      { type: 'tool-call-start', index: 0, id: 'c1', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":"Oslo"}' },
      { type: 'tool-call-end', index: 0, signature: { origin: 'generate-content', value: 'CiQBsig1' } },
      { type: 'tool-call-start', index: 1, id: 'c2', name: 'get_weather' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"city":"Bergen"}' },
      { type: 'tool-call-end', index: 1 },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'STOP' }, usage: { inputTokens: 82, outputTokens: 20 } },
    ]);
  });

  it('should replay thoughts with their signature and read past STOP on every chunk', () => {
    expect(decode(readFixture('thinking.chunks.txt'))).toEqual([
      start('r3'),
      { type: 'reasoning-delta', text: 'Planning the answer.' },
      { type: 'reasoning-delta', text: ' Oslo is cold in winter.' },
      { type: 'reasoning-end', signature: { origin: 'generate-content', value: 'CiQBthought' } },
      { type: 'text-delta', text: 'Yes, cold.' },
      {
        type: 'finish',
        finishReason: { unified: 'stop', raw: 'STOP' },
        usage: { inputTokens: 40, outputTokens: 35, cacheReadTokens: 16, reasoningTokens: 31 },
      },
    ]);
  });

  it('should synthesise missing call ids and emit generated images as file parts', () => {
    const parts = decode([
      { data: '{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}},{"functionCall":{"name":"f"}}]}}]}' },
      { data: '{"candidates":[{"content":{"role":"model","parts":[{"inlineData":{"mimeType":"image/png","data":"iVBO"}}]},"finishReason":"STOP"}]}' },
    ]);
    const ids = parts.flatMap((part) => (part.type === 'tool-call-start' ? [part.id] : []));
    expect(ids).toEqual([expect.stringMatching(/^call_/), expect.stringMatching(/^call_/)]);
    expect(ids[0]).not.toBe(ids[1]);
    expect(parts.slice(-2)).toEqual([
      { type: 'file', mediaType: 'image/png', data: 'iVBO' },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'STOP' }, usage: { inputTokens: 0, outputTokens: 0, estimated: true } },
    ]);
  });

  it('should end with an error part for an in-band error and ignore what follows', () => {
    const decoder = createStreamDecoder();
    decoder.push({ data: '{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]}}],"responseId":"r"}' });
    const parts = decoder.push({ data: '{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}' });
    expect(parts).toEqual([{ type: 'error', error: expect.objectContaining({ kind: 'unavailable', status: 503, message: 'The model is overloaded.' }) }]);
    expect(decoder.push({ data: '{"candidates":[]}' })).toEqual([]);
    expect(decoder.end()).toEqual([]);
  });

  it('should treat a stream cut before any finish reason as an error', () => {
    const parts = decode([{ data: '{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]}}]}' }]);
    expect(parts.at(-1)).toEqual({ type: 'error', error: expect.objectContaining({ kind: 'upstream_error' }) });
    expect(decode([])).toEqual([{ type: 'error', error: expect.objectContaining({ kind: 'upstream_error' }) }]);
  });

  it('should finish a blocked prompt with content-filter', () => {
    expect(decode([{ data: '{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":7,"totalTokenCount":7}}' }]).at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'content-filter', raw: 'SAFETY' },
      usage: { inputTokens: 7, outputTokens: 0 },
    });
  });
});

describe('extractStreamUsage', () => {
  it('should read the usage snapshot of a chunk and skip chunks without one', () => {
    const [first, second] = readFixture('text.chunks.txt');
    expect(extractStreamUsage(first!)).toBeUndefined();
    expect(extractStreamUsage(second!)).toEqual({ inputTokens: 60, outputTokens: 2 });
  });
});
