import type { CanonicalResponse } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { responseFromCanonical, responseToCanonical } from './response.ts';

const context = { model: 'fast-chat', requestId: 'req_1', includeReasoning: true };

describe('responseToCanonical', () => {
  it('should decode thoughts, calls with signatures, generated images, tool-calls finish and usage with thoughts and cache', () => {
    const response = responseToCanonical({
      candidates: [
        {
          index: 0,
          finishReason: 'STOP',
          content: {
            role: 'model',
            parts: [
              { text: 'Planning the lookup.', thought: true },
              { functionCall: { id: 'c1', name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: 'CiQB' },
              { functionCall: { name: 'get_weather', args: { city: 'Bergen' } } },
              { inlineData: { mimeType: 'image/png', data: 'iVBO' } },
            ],
          },
          safetyRatings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE' }],
        },
      ],
      usageMetadata: { promptTokenCount: 60, candidatesTokenCount: 12, thoughtsTokenCount: 31, totalTokenCount: 103, cachedContentTokenCount: 20 },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'aBcD',
    });
    expect(response).toEqual({
      id: 'aBcD',
      model: 'gemini-2.5-flash',
      created: expect.any(Number),
      content: [
        { type: 'reasoning', text: 'Planning the lookup.' },
        {
          type: 'tool-call',
          id: 'c1',
          name: 'get_weather',
          arguments: '{"city":"Oslo"}',
          signature: { origin: 'generate-content', value: 'CiQB' },
        },
        { type: 'tool-call', id: expect.stringMatching(/^call_/), name: 'get_weather', arguments: '{"city":"Bergen"}' },
        { type: 'file', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } },
      ],
      finishReason: { unified: 'tool-calls', raw: 'STOP' },
      usage: { inputTokens: 60, outputTokens: 43, cacheReadTokens: 20, reasoningTokens: 31 },
    });
  });

  it('should map finish reasons and a blocked prompt', () => {
    const finish = (body: Record<string, unknown>) => responseToCanonical(body).finishReason;
    const candidate = (finishReason: string) => ({ candidates: [{ content: { role: 'model', parts: [{ text: 'x' }] }, finishReason }] });
    expect(finish(candidate('STOP'))).toEqual({ unified: 'stop', raw: 'STOP' });
    expect(finish(candidate('MAX_TOKENS'))).toEqual({ unified: 'length', raw: 'MAX_TOKENS' });
    expect(finish(candidate('SAFETY'))).toEqual({ unified: 'content-filter', raw: 'SAFETY' });
    expect(finish(candidate('RECITATION'))).toEqual({ unified: 'content-filter', raw: 'RECITATION' });
    expect(finish(candidate('MALFORMED_FUNCTION_CALL'))).toEqual({ unified: 'stop', raw: 'MALFORMED_FUNCTION_CALL' });
    expect(finish(candidate('SOMETHING_NEW'))).toEqual({ unified: 'other', raw: 'SOMETHING_NEW' });
    expect(finish({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } })).toEqual({
      unified: 'content-filter',
      raw: 'PROHIBITED_CONTENT',
    });
  });

  it('should report missing usage as an estimated zero and add tool-use prompt tokens to input', () => {
    expect(responseToCanonical({ candidates: [] }).usage).toEqual({ inputTokens: 0, outputTokens: 0, estimated: true });
    expect(responseToCanonical({ usageMetadata: { promptTokenCount: 10, toolUsePromptTokenCount: 4, candidatesTokenCount: 2 } }).usage).toEqual({
      inputTokens: 14,
      outputTokens: 2,
    });
  });

  it('should answer a body of the wrong shape with an upstream error', () => {
    expect(() => responseToCanonical({ candidates: 'nope' })).toThrow(expect.objectContaining({ kind: 'upstream_error', status: 502 }));
  });
});

describe('responseFromCanonical', () => {
  const base: CanonicalResponse = {
    id: 'resp_1',
    model: 'claude-sonnet-4-5',
    created: 1767225600,
    content: [],
    finishReason: { unified: 'stop' },
    usage: { inputTokens: 60, outputTokens: 43, cacheReadTokens: 20, reasoningTokens: 31 },
  };

  it('should render the answer with candidatesTokenCount excluding thoughts', () => {
    expect(
      responseFromCanonical(
        {
          ...base,
          content: [
            { type: 'reasoning', text: 'Plan.', signature: { origin: 'messages', value: 'x' } },
            { type: 'text', text: 'Hello.' },
            { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          ],
          finishReason: { unified: 'tool-calls', raw: 'tool_use' },
        },
        context,
      ),
    ).toEqual({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ text: 'Plan.', thought: true }, { text: 'Hello.' }, { functionCall: { id: 'toolu_1', name: 'get_weather', args: { city: 'Oslo' } } }],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 60, candidatesTokenCount: 12, thoughtsTokenCount: 31, cachedContentTokenCount: 20, totalTokenCount: 103 },
      modelVersion: 'fast-chat',
      responseId: 'resp_1',
    });
  });

  it('should render length and content-filter finishes, the latter without parts', () => {
    const render = (response: CanonicalResponse) => (responseFromCanonical(response, context) as { candidates: unknown[] }).candidates[0];
    expect(render({ ...base, content: [{ type: 'text', text: 'Cut' }], finishReason: { unified: 'length' } })).toEqual({
      content: { role: 'model', parts: [{ text: 'Cut' }] },
      finishReason: 'MAX_TOKENS',
      index: 0,
    });
    expect(render({ ...base, finishReason: { unified: 'content-filter' } })).toEqual({ content: { role: 'model' }, finishReason: 'SAFETY', index: 0 });
  });

  it('should blame the upstream for tool arguments that are not a JSON object', () => {
    const response: CanonicalResponse = { ...base, content: [{ type: 'tool-call', id: 'c', name: 'f', arguments: '{"a":' }] };
    expect(() => responseFromCanonical(response, context)).toThrow(expect.objectContaining({ kind: 'upstream_error' }));
  });

  it('should round-trip an upstream answer', () => {
    const body = {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'Thinking.', thought: true, thoughtSignature: 's1' },
              { text: 'Here.' },
              { functionCall: { id: 'c1', name: 'f', args: { a: [1, { b: null }] } }, thoughtSignature: 's2' },
            ],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 4, thoughtsTokenCount: 5, totalTokenCount: 18 },
      modelVersion: 'fast-chat',
      responseId: 'r9',
    };
    expect(responseFromCanonical(responseToCanonical(body), context)).toEqual(body);
  });
});

describe('thoughts the client did not ask for', () => {
  it('should keep only the signature of a thought when the client did not ask for thoughts', () => {
    const rendered = responseFromCanonical(
      {
        id: 'r1',
        model: 'm',
        created: 0,
        content: [
          { type: 'reasoning', text: 'secret plan', signature: { origin: 'generate-content', value: 'sig' } },
          { type: 'reasoning', text: 'unsigned musing' },
          { type: 'text', text: 'Answer.' },
        ],
        finishReason: { unified: 'stop' },
        usage: { inputTokens: 1, outputTokens: 2 },
      },
      { model: 'm', requestId: 'req_1' },
    );
    expect(JSON.stringify(rendered)).not.toContain('secret plan');
    expect(JSON.stringify(rendered)).not.toContain('unsigned musing');
    expect((rendered as { candidates: Array<{ content: { parts: unknown[] } }> }).candidates[0]?.content.parts).toEqual([
      { text: '', thought: true, thoughtSignature: 'sig' },
      { text: 'Answer.' },
    ]);
  });
});
