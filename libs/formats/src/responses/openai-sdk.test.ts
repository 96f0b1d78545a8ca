import { GatewayError, type StreamPart } from '@switchyard/canonical';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { renderError } from './errors.ts';
import { responseFromCanonical } from './response.ts';
import { createStreamEncoder } from './stream-encoder.ts';

/**
 * What Switchyard writes, read back by the official openai SDK: its `responses.stream` helper
 * is the strictest consumer there is (protocols.md §7.3).
 */

const context = { model: 'fast-chat', requestId: 'req_1' };
const usage = { inputTokens: 20, outputTokens: 9, reasoningTokens: 4 };

function clientAnswering(body: string, init: ResponseInit): OpenAI {
  return new OpenAI({
    apiKey: 'sk-sy-test',
    baseURL: 'http://switchyard.test/v1',
    maxRetries: 0,
    fetch: () => Promise.resolve(new Response(body, init)),
  });
}

function streamingClient(parts: StreamPart[]): OpenAI {
  const encoder = createStreamEncoder(context);
  const sse = parts.map((part) => encoder.push(part)).join('');
  return clientAnswering(sse, { headers: { 'content-type': 'text/event-stream' } });
}

const turn: StreamPart[] = [
  { type: 'start', id: 'msg_01XY', model: 'claude-sonnet-4-5', created: 1767225600 },
  { type: 'reasoning-delta', text: 'Two cities.' },
  { type: 'reasoning-end' },
  { type: 'text-delta', text: 'Checking ' },
  { type: 'text-delta', text: 'both.' },
  { type: 'tool-call-start', index: 0, id: 'toolu_a', name: 'get_weather' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":"Oslo"}' },
  { type: 'tool-call-start', index: 1, id: 'toolu_b', name: 'get_weather' },
  { type: 'tool-call-delta', index: 1, argumentsDelta: '{"city":"Bergen"}' },
];

describe('openai SDK against Switchyard responses output', () => {
  it('should accept a stream that leaves tool calls for the finish to close', async () => {
    const stream = streamingClient([...turn, { type: 'finish', finishReason: { unified: 'tool-calls' }, usage }]).responses.stream({
      model: 'fast-chat',
      input: 'Weather in Oslo and Bergen?',
    });
    const response = await stream.finalResponse();
    expect([response.id, response.status, response.output_text]).toEqual(['resp_01XY', 'completed', 'Checking both.']);
    expect(response.output.map((item) => (item.type === 'function_call' ? [item.call_id, item.arguments] : item.type))).toEqual([
      'reasoning',
      'message',
      ['toolu_a', '{"city":"Oslo"}'],
      ['toolu_b', '{"city":"Bergen"}'],
    ]);
    expect(response.usage).toMatchObject({ input_tokens: 20, output_tokens: 9, total_tokens: 29 });
  });

  it('should accept an incomplete stream', async () => {
    const response = await streamingClient([
      { type: 'start', id: 'chatcmpl-1', model: 'gpt-4o', created: 1767225600 },
      { type: 'text-delta', text: 'Part' },
      { type: 'finish', finishReason: { unified: 'length' }, usage },
    ])
      .responses.stream({ model: 'fast-chat', input: 'Long essay' })
      .finalResponse();
    expect([response.status, response.incomplete_details, response.output_text]).toEqual(['incomplete', { reason: 'max_output_tokens' }, 'Part']);
  });

  it('should surface a mid-stream error event as an API error', async () => {
    const stream = streamingClient([turn[0] as StreamPart, { type: 'text-delta', text: 'Hi' }, { type: 'error', error: new GatewayError('overloaded', 'Overloaded') }]).responses.stream({
      model: 'fast-chat',
      input: 'hi',
    });
    await expect(stream.finalResponse()).rejects.toThrow('Overloaded');
  });

  it('should parse a non-streaming answer', async () => {
    const body = responseFromCanonical(
      {
        id: 'chatcmpl-7Qx',
        model: 'gpt-4o',
        created: 1767225600,
        content: [
          { type: 'text', text: 'Cold.' },
          { type: 'tool-call', id: 'call_a', name: 'get_weather', arguments: '{}' },
        ],
        finishReason: { unified: 'tool-calls' },
        usage,
      },
      context,
    );
    const response = await clientAnswering(JSON.stringify(body), { headers: { 'content-type': 'application/json' } }).responses.create({
      model: 'fast-chat',
      input: 'Weather?',
    });
    expect([response.id, response.output_text, response.output.length]).toEqual(['resp_7Qx', 'Cold.', 2]);
  });

  it('should read an error envelope with its status, code and request id', async () => {
    const rendered = renderError(new GatewayError('not_found', 'Unknown model gpt-9', { param: 'model' }), 'req_42');
    const client = clientAnswering(JSON.stringify(rendered.body), {
      status: rendered.status,
      headers: { ...rendered.headers, 'content-type': 'application/json' },
    });
    const error: unknown = await client.responses.create({ model: 'gpt-9', input: 'hi' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'model_not_found', param: 'model', requestID: 'req_42' });
  });
});
