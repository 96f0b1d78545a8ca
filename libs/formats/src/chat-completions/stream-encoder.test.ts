import { GatewayError } from '@switchyard/canonical';
import type { StreamPart } from '@switchyard/canonical';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { ResponseContext } from '../wire-format.ts';
import { encodeAll } from './__fixtures__/replay.ts';
import { createStreamEncoder } from './stream-encoder.ts';

const context: ResponseContext = { model: 'gpt-4o', requestId: 'req_1' };
const head = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4o","choices":[';

function events(...data: string[]): string {
  return data.map((item) => `data: ${item}\n\n`).join('');
}

const toolParts: StreamPart[] = [
  { type: 'start', id: 'chatcmpl-1', model: 'upstream-model', created: 1767225600 },
  { type: 'tool-call-start', index: 0, id: 'call_9f2', name: 'get_weather' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '"Oslo"}' },
  { type: 'tool-call-end', index: 0 },
  { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' }, usage: { inputTokens: 82, outputTokens: 17 } },
];

describe('createStreamEncoder', () => {
  it('should write the protocols.md §3.5 sequence byte for byte with the usage chunk', () => {
    expect(encodeAll(createStreamEncoder({ ...context, includeUsage: true }), toolParts)).toBe(
      events(
        head + '{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}',
        head +
          '{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_9f2","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}],"usage":null}',
        head + '{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":"}}]},"finish_reason":null}],"usage":null}',
        head + '{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\\"Oslo\\"}"}}]},"finish_reason":null}],"usage":null}',
        head + '{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":null}',
        head +
          '],"usage":{"prompt_tokens":82,"completion_tokens":17,"total_tokens":99,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}',
        '[DONE]',
      ),
    );
  });

  it('should leave out the usage chunk and the usage keys when the client did not ask', () => {
    const parts: StreamPart[] = [
      { type: 'start', id: 'chatcmpl-1', model: 'm', created: 1767225600 },
      { type: 'text-delta', text: 'Hi "there"\n' },
      { type: 'finish', finishReason: { unified: 'stop' }, usage: { inputTokens: 1, outputTokens: 1 } },
    ];
    expect(encodeAll(createStreamEncoder(context), parts)).toBe(
      events(
        head + '{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}',
        head + '{"index":0,"delta":{"content":"Hi \\"there\\"\\n"},"finish_reason":null}]}',
        head + '{"index":0,"delta":{},"finish_reason":"stop"}]}',
        '[DONE]',
      ),
    );
  });

  it('should derive a chatcmpl id from another format’s id and echo the client model', () => {
    const text = createStreamEncoder({ model: 'public', requestId: 'r' }).push({ type: 'start', id: 'msg_01XY', model: 'claude', created: 5 });
    expect(text).toBe(
      events('{"id":"chatcmpl-msg_01XY","object":"chat.completion.chunk","created":5,"model":"public","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}'),
    );
  });

  it('should emit refusals, and reasoning only for clients that opted in', () => {
    const parts: StreamPart[] = [
      { type: 'start', id: 'chatcmpl-1', model: 'm', created: 1767225600 },
      { type: 'reasoning-delta', text: 'think' },
      { type: 'reasoning-end', signature: { origin: 'messages', value: 'sig' } },
      { type: 'refusal-delta', text: 'No.' },
    ];
    const plain = encodeAll(createStreamEncoder(context), parts);
    expect(plain).not.toContain('reasoning_content');
    expect(plain).toContain(head + '{"index":0,"delta":{"refusal":"No."},"finish_reason":null}]}');
    expect(encodeAll(createStreamEncoder({ ...context, includeReasoning: true }), parts)).toContain(
      head + '{"index":0,"delta":{"reasoning_content":"think"},"finish_reason":null}]}',
    );
  });

  it('should skip empty deltas and parts chat has no place for', () => {
    const encoder = createStreamEncoder(context);
    encoder.push({ type: 'start', id: 'chatcmpl-1', model: 'm', created: 1 });
    expect(
      [
        encoder.push({ type: 'text-delta', text: '' }),
        encoder.push({ type: 'tool-call-delta', index: 0, argumentsDelta: '' }),
        encoder.push({ type: 'file', mediaType: 'image/png', data: 'iVBO' }),
        encoder.push({ type: 'tool-call-end', index: 0 }),
      ].join(''),
    ).toBe('');
  });

  it('should end with the error event alone: no finish, no [DONE], nothing after', () => {
    const encoder = createStreamEncoder({ ...context, includeUsage: true });
    encoder.push({ type: 'start', id: 'chatcmpl-1', model: 'm', created: 1767225600 });
    const error = new GatewayError('overloaded', 'Overloaded', { upstreamType: 'overloaded_error' });
    expect(encoder.push({ type: 'error', error })).toBe(
      events('{"error":{"message":"Overloaded","type":"server_error","param":null,"code":null}}'),
    );
    expect(encoder.push({ type: 'finish', finishReason: { unified: 'stop' }, usage: { inputTokens: 0, outputTokens: 0 } })).toBe('');
  });

  it('should still open with a role chunk when start never came', () => {
    const text = createStreamEncoder(context).push({ type: 'text-delta', text: 'x' });
    expect(text.match(/"role":"assistant"/g)).toHaveLength(1);
    expect(text).toMatch(/^data: \{"id":"chatcmpl-req_1".*\n\ndata: \{"id":"chatcmpl-req_1".*"content":"x"/s);
  });
});

describe('createStreamEncoder read by openai-node', () => {
  function clientAnswering(sse: string): OpenAI {
    return new OpenAI({
      apiKey: 'sk-test',
      maxRetries: 0,
      fetch: async () => new Response(sse, { headers: { 'content-type': 'text/event-stream' } }),
    });
  }

  it('should assemble into the final completion the SDK builds', async () => {
    const sse = encodeAll(createStreamEncoder({ ...context, includeUsage: true }), [
      { type: 'start', id: 'chatcmpl-1', model: 'm', created: 1767225600 },
      { type: 'text-delta', text: 'Checking ' },
      { type: 'text-delta', text: 'both.' },
      ...toolParts.slice(1, 4),
      { type: 'tool-call-start', index: 1, id: 'call_2', name: 'get_time' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
      ...toolParts.slice(4),
    ]);
    const stream = clientAnswering(sse).chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] });
    const completion = await stream.finalChatCompletion();
    expect(completion.choices[0]?.message).toMatchObject({
      role: 'assistant',
      content: 'Checking both.',
      tool_calls: [
        { id: 'call_9f2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
      ],
    });
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(completion.usage).toMatchObject({ prompt_tokens: 82, completion_tokens: 17, total_tokens: 99 });
  });

  it('should make the SDK throw on the error event', async () => {
    const encoder = createStreamEncoder(context);
    const sse =
      encoder.push({ type: 'start', id: 'chatcmpl-1', model: 'm', created: 1 }) +
      encoder.push({ type: 'text-delta', text: 'Part' }) +
      encoder.push({ type: 'error', error: new GatewayError('upstream_error', 'upstream stream ended early') });
    const stream = await clientAnswering(sse).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true });
    const read = async () => {
      for await (const _chunk of stream) {
        // drain
      }
    };
    await expect(read()).rejects.toThrow('upstream stream ended early');
  });
});
