import type { CanonicalRequest } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { caught } from '../testing/test-support.ts';
import { requestFromCanonical, requestToCanonical } from './request.ts';

const user = { role: 'user', content: 'Hi' } as const;

function decode(body: Record<string, unknown>): CanonicalRequest {
  return requestToCanonical(body, {});
}

describe('requestToCanonical', () => {
  it('should decode a plain text request', () => {
    expect(decode({ model: 'gpt-4o', messages: [user] })).toEqual({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      stream: false,
    });
  });

  it('should let the context override model and stream', () => {
    const request = requestToCanonical({ model: 'a', messages: [user], stream: false }, { model: 'b', stream: true });
    expect([request.model, request.stream]).toEqual(['b', true]);
  });

  it('should decode sampling parameters, stop and max tokens', () => {
    expect(
      decode({
        model: 'm',
        messages: [user],
        temperature: 0.2,
        top_p: 0.9,
        n: 1,
        seed: 7,
        presence_penalty: -1,
        frequency_penalty: 1.5,
        stop: 'END',
        max_tokens: 100,
        parallel_tool_calls: false,
      }),
    ).toMatchObject({
      temperature: 0.2,
      topP: 0.9,
      n: 1,
      seed: 7,
      presencePenalty: -1,
      frequencyPenalty: 1.5,
      stopSequences: ['END'],
      maxOutputTokens: 100,
      parallelToolCalls: false,
    });
  });

  it('should prefer max_completion_tokens over the legacy max_tokens', () => {
    expect(decode({ model: 'm', messages: [user], max_tokens: 100, max_completion_tokens: 300 }).maxOutputTokens).toBe(300);
  });

  it('should treat null optional fields as absent', () => {
    const request = decode({ model: 'm', messages: [user], temperature: null, stop: null, tools: null, user: null });
    expect(request).toEqual({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], stream: false });
  });

  it('should decode response formats', () => {
    expect(decode({ model: 'm', messages: [user], response_format: { type: 'json_object' } }).responseFormat).toEqual({ type: 'json' });
    expect(
      decode({
        model: 'm',
        messages: [user],
        response_format: { type: 'json_schema', json_schema: { name: 'city', schema: { type: 'object' }, strict: true } },
      }).responseFormat,
    ).toEqual({ type: 'json-schema', name: 'city', schema: { type: 'object' }, strict: true });
  });

  it('should decode reasoning_effort, user and stream options', () => {
    const request = decode({
      model: 'm',
      messages: [user],
      reasoning_effort: 'high',
      safety_identifier: 'u-1',
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(request).toMatchObject({ reasoning: { effort: 'high' }, user: 'u-1', stream: true, includeUsage: true });
    expect(request.extensions).toBeUndefined();
  });

  it('should keep the deprecated user as canonical and safety_identifier as an extension when both are sent', () => {
    const request = decode({ model: 'm', messages: [user], user: 'legacy', safety_identifier: 'new' });
    expect(request.user).toBe('legacy');
    expect(request.extensions).toEqual({ format: 'chat-completions', fields: { safety_identifier: 'new' } });
  });

  it('should keep vendor fields without canonical meaning as extensions', () => {
    const request = decode({
      model: 'm',
      messages: [user],
      logprobs: true,
      top_logprobs: 2,
      logit_bias: { '50256': -100 },
      modalities: ['text', 'audio'],
      audio: { voice: 'alloy', format: 'wav' },
      service_tier: 'flex',
      store: true,
      metadata: { team: 'search' },
      stream_options: { include_usage: false, include_obfuscation: false },
      brand_new_field: { x: 1 },
    });
    expect(request.includeUsage).toBe(false);
    expect(request.extensions).toEqual({
      format: 'chat-completions',
      fields: {
        logprobs: true,
        top_logprobs: 2,
        logit_bias: { '50256': -100 },
        modalities: ['text', 'audio'],
        audio: { voice: 'alloy', format: 'wav' },
        service_tier: 'flex',
        store: true,
        metadata: { team: 'search' },
        stream_options: { include_obfuscation: false },
        brand_new_field: { x: 1 },
      },
    });
  });

  it('should keep unknown fields inside messages without rejecting them', () => {
    expect(() => decode({ model: 'm', messages: [{ role: 'user', content: 'x', vendor_hint: 1 }] })).not.toThrow();
  });

  it.each([
    ['temperature', { temperature: 3 }],
    ['temperature', { temperature: -0.1 }],
    ['top_p', { top_p: 1.5 }],
    ['top_p', { top_p: -1 }],
    ['n', { n: 0 }],
    ['n', { n: 1.5 }],
    ['presence_penalty', { presence_penalty: -3 }],
    ['presence_penalty', { presence_penalty: 2.1 }],
    ['frequency_penalty', { frequency_penalty: 2.5 }],
    ['frequency_penalty', { frequency_penalty: -2.5 }],
    ['max_completion_tokens', { max_completion_tokens: 0 }],
    ['messages', { messages: [] }],
    ['messages', { messages: 'hello' }],
    ['model', { model: undefined }],
    ['model', { model: 42 }],
    ['messages[0].role', { messages: [{ role: 'robot', content: 'x' }] }],
    ['messages[0].tool_call_id', { messages: [{ role: 'tool', content: 'x' }] }],
    ['reasoning_effort', { reasoning_effort: 'extreme' }],
  ])('should answer 400 naming %s', (param, override) => {
    const error = caught(() => decode({ model: 'm', messages: [user], ...override }));
    expect([error.kind, error.status, error.param]).toEqual(['invalid_request', 400, param]);
  });
});

describe('requestFromCanonical', () => {
  const base: CanonicalRequest = { model: 'public', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], stream: false };

  it('should address the target model', () => {
    expect(requestFromCanonical(base, { model: 'upstream-id' })).toEqual({
      body: { model: 'upstream-id', messages: [{ role: 'user', content: 'Hi' }] },
      warnings: [],
    });
  });

  it('should always ask a streaming upstream for usage', () => {
    const { body } = requestFromCanonical({ ...base, stream: true, includeUsage: false }, { model: 'u' });
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('should merge extension stream options under the forced include_usage, and drop them when not streaming', () => {
    const extensions = { format: 'chat-completions', fields: { stream_options: { include_obfuscation: false } } } as const;
    expect(requestFromCanonical({ ...base, stream: true, extensions }, { model: 'u' }).body.stream_options).toEqual({
      include_obfuscation: false,
      include_usage: true,
    });
    expect(requestFromCanonical({ ...base, extensions }, { model: 'u' }).body).not.toHaveProperty('stream_options');
  });

  it('should ignore n and previous-response state', () => {
    const { body } = requestFromCanonical({ ...base, n: 3, previousResponseId: 'resp_1', store: true }, { model: 'u' });
    expect(Object.keys(body).filter((key) => body[key] !== undefined)).toEqual(['model', 'messages']);
  });

  it('should drop metadata with a warning, as chat refuses it without stored completions', () => {
    const { body, warnings } = requestFromCanonical({ ...base, metadata: { user_id: 'u' } }, { model: 'u' });
    expect(body).not.toHaveProperty('metadata');
    expect(warnings).toEqual(['metadata is not supported by chat-completions and was dropped.']);
  });

  it('should drop top_k with a warning', () => {
    const { body, warnings } = requestFromCanonical({ ...base, topK: 40 }, { model: 'u' });
    expect(body).not.toHaveProperty('top_k');
    expect(warnings).toEqual(['top_k is not supported by chat-completions and was dropped.']);
  });

  it('should map a reasoning budget to an effort through the shared policy', () => {
    expect(requestFromCanonical({ ...base, reasoning: { budgetTokens: 1500 } }, { model: 'u' }).body.reasoning_effort).toBe('low');
  });

  it('should copy extension fields only from its own format, never over canonical values', () => {
    const own = requestFromCanonical(
      { ...base, temperature: 0.5, extensions: { format: 'chat-completions', fields: { logprobs: true, temperature: 2 } } },
      { model: 'u' },
    );
    expect(own.body).toMatchObject({ logprobs: true, temperature: 0.5 });
    const foreign = requestFromCanonical({ ...base, extensions: { format: 'messages', fields: { top_k: 3 } } }, { model: 'u' });
    expect(foreign.body).not.toHaveProperty('top_k');
  });

  it('should refuse image or audio output it cannot produce', () => {
    expect(caught(() => requestFromCanonical({ ...base, outputModalities: ['text', 'image'] }, { model: 'u' })).kind).toBe(
      'invalid_request',
    );
    expect(requestFromCanonical({ ...base, outputModalities: ['text'] }, { model: 'u' }).warnings).toEqual([]);
  });
});
