import { readFileSync } from 'node:fs';
import { GatewayError, type StreamPart } from '@switchyard/canonical';
import { createSseParser, type SseEvent } from '@switchyard/sse';
import { describe, expect, it } from 'vitest';
import { createStreamDecoder } from './stream-decoder.ts';
import { createStreamEncoder } from './stream-encoder.ts';

const context = { model: 'fast-chat', requestId: 'req_1', includeReasoning: true };

function encode(parts: StreamPart[]): string {
  const encoder = createStreamEncoder(context);
  return parts.map((part) => encoder.push(part)).join('');
}

function events(text: string | Uint8Array): SseEvent[] {
  const parsed: SseEvent[] = [];
  const parser = createSseParser((event) => parsed.push(event));
  parser.push(typeof text === 'string' ? new TextEncoder().encode(text) : text);
  parser.end();
  return parsed;
}

function decode(list: SseEvent[]): StreamPart[] {
  const decoder = createStreamDecoder();
  return [...list.flatMap((event) => decoder.push(event)), ...decoder.end()];
}

const start: StreamPart = { type: 'start', id: 'r1', model: 'claude-sonnet-4-5', created: 1767225600 };
const tail = ',"modelVersion":"fast-chat","responseId":"r1"}\n\n';

describe('createStreamEncoder', () => {
  it('should write text deltas as self-contained chunks and finish with reason and usage', () => {
    expect(
      encode([
        start,
        { type: 'text-delta', text: 'Cold' },
        { type: 'text-delta', text: '' },
        { type: 'text-delta', text: ' and "clear".' },
        { type: 'finish', finishReason: { unified: 'stop' }, usage: { inputTokens: 60, outputTokens: 5 } },
      ]),
    ).toBe(
      `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Cold"}]},"index":0}]${tail}` +
        `data: {"candidates":[{"content":{"role":"model","parts":[{"text":" and \\"clear\\"."}]},"index":0}]${tail}` +
        `data: {"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}],` +
        `"usageMetadata":{"promptTokenCount":60,"candidatesTokenCount":5,"totalTokenCount":65}${tail}`,
    );
  });

  it('should buffer streamed argument fragments and emit each call whole when it ends', () => {
    expect(
      encode([
        start,
        { type: 'tool-call-start', index: 0, id: 'call_1', name: 'get_weather' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":' },
        { type: 'tool-call-start', index: 1, id: 'call_2', name: 'get_weather' },
        { type: 'tool-call-delta', index: 1, argumentsDelta: '{\n  "city": "Bergen"\n}' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '"Oslo"}' },
        { type: 'tool-call-end', index: 0, signature: { origin: 'generate-content', value: 'sig' } },
        { type: 'tool-call-end', index: 1, signature: { origin: 'messages', value: 'other' } },
        { type: 'finish', finishReason: { unified: 'tool-calls' }, usage: { inputTokens: 82, outputTokens: 17 } },
      ]),
    ).toBe(
      `data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"call_1","name":"get_weather","args":{"city":"Oslo"}},"thoughtSignature":"sig"}]},"index":0}]${tail}` +
        `data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"call_2","name":"get_weather","args":{"city":"Bergen"}}}]},"index":0}]${tail}` +
        `data: {"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}],` +
        `"usageMetadata":{"promptTokenCount":82,"candidatesTokenCount":17,"totalTokenCount":99}${tail}`,
    );
  });

  it('should write thoughts with thought:true and their signature, and thoughts tokens apart', () => {
    expect(
      encode([
        start,
        { type: 'reasoning-delta', text: 'Plan.' },
        { type: 'reasoning-end', signature: { origin: 'generate-content', value: 'CiQB' } },
        { type: 'text-delta', text: 'Yes.' },
        { type: 'finish', finishReason: { unified: 'stop' }, usage: { inputTokens: 40, outputTokens: 35, reasoningTokens: 31, cacheReadTokens: 16 } },
      ]),
    ).toBe(
      `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Plan.","thought":true}]},"index":0}]${tail}` +
        `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"","thought":true,"thoughtSignature":"CiQB"}]},"index":0}]${tail}` +
        `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Yes."}]},"index":0}]${tail}` +
        `data: {"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}],` +
        `"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":4,"totalTokenCount":75,"thoughtsTokenCount":31,"cachedContentTokenCount":16}${tail}`,
    );
  });

  it('should end with the Google error envelope and write nothing after it', () => {
    const encoder = createStreamEncoder(context);
    encoder.push(start);
    expect(encoder.push({ type: 'text-delta', text: 'Hi' })).not.toBe('');
    const error = encoder.push({ type: 'error', error: new GatewayError('overloaded', 'Overloaded') });
    expect(error).toBe(
      'data: {"error":{"code":503,"message":"Overloaded","status":"UNAVAILABLE","details":[{"@type":"type.googleapis.com/google.rpc.RequestInfo","requestId":"req_1"}]}}\n\n',
    );
    expect(encoder.push({ type: 'text-delta', text: 'late' })).toBe('');
    expect(encoder.push({ type: 'finish', finishReason: { unified: 'stop' }, usage: { inputTokens: 1, outputTokens: 1 } })).toBe('');
  });

  it('should turn unparsable tool arguments into an error event', () => {
    const text = encode([
      start,
      { type: 'tool-call-start', index: 0, id: 'c', name: 'f' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"a":' },
      { type: 'tool-call-end', index: 0 },
      { type: 'finish', finishReason: { unified: 'tool-calls' }, usage: { inputTokens: 1, outputTokens: 1 } },
    ]);
    expect(events(text)).toEqual([{ event: undefined, data: expect.stringContaining('"status":"UNAVAILABLE"') }]);
  });

  it('should never write event: or id: lines', () => {
    const text = encode(decode(events(readFileSync(new URL('./__fixtures__/function-calls.chunks.txt', import.meta.url)))));
    expect(text).not.toMatch(/^(event|id):/m);
    expect(text.split('\n\n').filter((block) => block !== '').every((block) => block.startsWith('data: ') && !block.includes('\n'))).toBe(true);
  });

  it('should decode its own output back to the parts it was given', () => {
    for (const fixture of ['text.chunks.txt', 'function-calls.chunks.txt', 'thinking.chunks.txt']) {
      const parts = decode(events(readFileSync(new URL(`./__fixtures__/${fixture}`, import.meta.url))));
      const again = decode(events(encode(parts))).map((part) => (part.type === 'start' ? { ...part, model: 'gemini-2.5-flash' } : part));
      expect(again).toEqual(parts);
    }
  });
});

describe('streamed thoughts the client did not ask for', () => {
  it('should write no thought text without includeReasoning', () => {
    const encoder = createStreamEncoder({ model: 'fast-chat', requestId: 'req_1' });
    const out = [
      encoder.push({ type: 'start', id: 'r1', model: 'm', created: 0 }),
      encoder.push({ type: 'reasoning-delta', text: 'hidden thinking' }),
      encoder.push({ type: 'text-delta', text: 'Hi' }),
    ].join('');
    expect(out).not.toContain('hidden thinking');
    expect(out).toContain('"text":"Hi"');
  });
});
