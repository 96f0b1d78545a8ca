import type { StreamPart } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { decodeAll, encodeAll, parseSse, readFixture } from './__fixtures__/replay.ts';
import { createStreamDecoder } from './stream-decoder.ts';
import { createStreamEncoder } from './stream-encoder.ts';

function decodeFixture(name: string): StreamPart[] {
  return decodeAll(createStreamDecoder(), parseSse(readFixture(name)));
}

interface VendorChunk {
  choices: Array<{ index: number; delta: Record<string, unknown>; finish_reason: string | null }>;
  usage: null | {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    prompt_tokens_details: { cached_tokens: number };
    completion_tokens_details: { reasoning_tokens: number };
  };
  [field: string]: unknown;
}

/**
 * The vendor's chunks without what the encoder cannot fill truthfully (fingerprint, tier,
 * obfuscation padding, logprobs, the null refusal of the role delta, usage details beyond
 * cache and reasoning), re-serialised in the vendor's key order; with `includeUsage` false
 * also without the usage chunk and the usage keys.
 */
function expectedReencoding(name: string, includeUsage: boolean): string {
  let text = '';
  for (const event of parseSse(readFixture(name))) {
    if (event.data === '[DONE]') {
      text += 'data: [DONE]\n\n';
      continue;
    }
    const { id, object, created, model, choices, usage } = JSON.parse(event.data) as VendorChunk;
    const kept = {
      id,
      object,
      created,
      model,
      choices: choices.map(({ index, delta: { refusal, ...delta }, finish_reason }) => ({
        index,
        delta: refusal === null ? delta : { ...delta, refusal },
        finish_reason,
      })),
    };
    if (!includeUsage) {
      if (choices.length > 0) text += `data: ${JSON.stringify(kept)}\n\n`;
      continue;
    }
    const renderedUsage = usage && {
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.total_tokens,
      prompt_tokens_details: { cached_tokens: usage.prompt_tokens_details.cached_tokens },
      completion_tokens_details: { reasoning_tokens: usage.completion_tokens_details.reasoning_tokens },
    };
    text += `data: ${JSON.stringify({ ...kept, usage: renderedUsage })}\n\n`;
  }
  return text;
}

describe('chat-completions stream fixtures', () => {
  describe('decoder', () => {
    it('should decode text.chunks.txt', () => {
      expect(decodeFixture('text.chunks.txt')).toEqual([
        { type: 'start', id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT', model: 'gpt-4o-2024-08-06', created: 1767225600 },
        { type: 'text-delta', text: 'Hello' },
        { type: 'text-delta', text: '! How' },
        { type: 'text-delta', text: ' can I help "you" today?' },
        {
          type: 'finish',
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: { inputTokens: 1940, outputTokens: 10, cacheReadTokens: 1920, reasoningTokens: 0 },
        },
      ]);
    });

    it('should decode parallel-tools.chunks.txt', () => {
      expect(decodeFixture('parallel-tools.chunks.txt')).toEqual([
        { type: 'start', id: 'chatcmpl-C3xq7Yw9pT2rVn8sKd1LmQeZfA0bH', model: 'gpt-4.1-2025-04-14', created: 1767225700 },
        { type: 'tool-call-start', index: 0, id: 'call_9f2aLm', name: 'get_weather' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: ' "Oslo"}' },
        { type: 'tool-call-start', index: 1, id: 'call_Qx81Zr', name: 'get_time' },
        { type: 'tool-call-delta', index: 1, argumentsDelta: '{"zone": "Europe/Oslo"}' },
        { type: 'tool-call-end', index: 0 },
        { type: 'tool-call-end', index: 1 },
        {
          type: 'finish',
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage: { inputTokens: 82, outputTokens: 17, cacheReadTokens: 0, reasoningTokens: 0 },
        },
      ]);
    });

    it('should decode reasoning.chunks.txt (reasoning_content, usage on the finish chunk)', () => {
      expect(decodeFixture('reasoning.chunks.txt')).toEqual([
        { type: 'start', id: '8f6c1d2e-3b4a-4c5d-9e8f-7a6b5c4d3e2f', model: 'deepseek-reasoner', created: 1767225800 },
        { type: 'reasoning-delta', text: 'The user asks 2+2.' },
        { type: 'reasoning-delta', text: ' That is 4.' },
        { type: 'text-delta', text: '4' },
        {
          type: 'finish',
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: { inputTokens: 12, outputTokens: 21, cacheReadTokens: 0, reasoningTokens: 14 },
        },
      ]);
    });

    it('should decode error.chunks.txt into an error part after the text', () => {
      const parts = decodeFixture('error.chunks.txt');
      expect(parts.map((part) => part.type)).toEqual(['start', 'text-delta', 'error']);
      expect(parts[2]).toMatchObject({
        error: {
          kind: 'upstream_error',
          message: 'The server had an error while processing your request. Sorry about that!',
          upstreamType: 'server_error',
        },
      });
    });

    it('should end truncated.chunks.txt with an error, not a finish', () => {
      const parts = decodeFixture('truncated.chunks.txt');
      expect(parts.map((part) => part.type)).toEqual(['start', 'text-delta', 'error']);
      expect(parts[2]).toMatchObject({ error: { kind: 'upstream_error', message: 'upstream stream ended early' } });
    });
  });

  describe('decode → encode', () => {
    it.each([
      ['text.chunks.txt', true],
      ['text.chunks.txt', false],
      ['parallel-tools.chunks.txt', true],
      ['parallel-tools.chunks.txt', false],
    ])('should reproduce the vendor event sequence of %s (includeUsage %s)', (name, includeUsage) => {
      const parts = decodeFixture(name);
      const start = parts[0]?.type === 'start' ? parts[0] : undefined;
      const encoder = createStreamEncoder({ model: start?.model ?? '', requestId: 'r', includeUsage });
      expect(encodeAll(encoder, parts)).toBe(expectedReencoding(name, includeUsage));
    });

    it('should re-encode reasoning.chunks.txt with reasoning_content for clients that opted in', () => {
      const encoder = createStreamEncoder({ model: 'public', requestId: 'r', includeReasoning: true });
      const head =
        'data: {"id":"chatcmpl-8f6c1d2e-3b4a-4c5d-9e8f-7a6b5c4d3e2f","object":"chat.completion.chunk","created":1767225800,"model":"public","choices":[';
      expect(encodeAll(encoder, decodeFixture('reasoning.chunks.txt'))).toBe(
        [
          '{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}',
          '{"index":0,"delta":{"reasoning_content":"The user asks 2+2."},"finish_reason":null}]}',
          '{"index":0,"delta":{"reasoning_content":" That is 4."},"finish_reason":null}]}',
          '{"index":0,"delta":{"content":"4"},"finish_reason":null}]}',
          '{"index":0,"delta":{},"finish_reason":"stop"}]}',
        ]
          .map((choice) => `${head}${choice}\n\n`)
          .join('') + 'data: [DONE]\n\n',
      );
    });

    it('should re-encode error.chunks.txt ending in the chat error event', () => {
      const text = encodeAll(createStreamEncoder({ model: 'm', requestId: 'r' }), decodeFixture('error.chunks.txt'));
      const message = 'The server had an error while processing your request. Sorry about that!';
      expect(text.endsWith(`data: {"error":{"message":"${message}","type":"server_error","param":null,"code":null}}\n\n`)).toBe(true);
      expect(text).not.toContain('[DONE]');
    });
  });
});
