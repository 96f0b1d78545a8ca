import { readdirSync, readFileSync } from 'node:fs';
import { GatewayError, type CanonicalUsage, type FormatId, type StreamPart } from '@switchyard/canonical';
import { formatSseEvent, type SseEvent } from '@switchyard/sse';
import { describe, expect, it } from 'vitest';
import { parseSse } from './chat-completions/__fixtures__/replay.ts';
import { wireFormats } from './registry.ts';

/**
 * Every format's relay monitor against its stream decoder, over the recorded fixtures, every
 * truncation of them, streams without usage, with an error event at every position, streams
 * made by the format's own encoder (usage details, tool calls, text that quotes the keys the
 * monitors look for) and hand-written edge cases.
 */

const FORMATS: FormatId[] = ['chat-completions', 'responses', 'messages', 'generate-content'];

/** The first event index (events.length for end()) at which each thing happened, and what it carried. */
interface Outcome {
  finishAt: number | undefined;
  usage: CanonicalUsage | undefined;
  errorAt: number | undefined;
  error: ErrorSummary | undefined;
  endError: ErrorSummary | undefined;
}

interface ErrorSummary {
  kind: string;
  message: string;
  status: number;
  code: string | undefined;
  param: string | undefined;
  upstreamType: string | undefined;
}

function summarize(error: GatewayError | undefined): ErrorSummary | undefined {
  if (error === undefined) return undefined;
  const { kind, message, status, code, param, upstreamType } = error;
  return { kind, message, status, code, param, upstreamType };
}

function decode(format: FormatId, events: readonly SseEvent[]): Outcome {
  const decoder = wireFormats[format].stream.createDecoder();
  const outcome: Outcome = { finishAt: undefined, usage: undefined, errorAt: undefined, error: undefined, endError: undefined };
  const observe = (parts: StreamPart[], at: number, fromEnd: boolean) => {
    for (const part of parts) {
      if (part.type === 'finish' && outcome.finishAt === undefined) {
        outcome.finishAt = at;
        // The decoder stands in an estimated zero where the upstream sent no usage; the monitor says undefined.
        outcome.usage = part.usage.estimated === true ? undefined : part.usage;
      } else if (part.type === 'error' && fromEnd) {
        outcome.endError = summarize(part.error);
      } else if (part.type === 'error' && outcome.errorAt === undefined) {
        outcome.errorAt = at;
        outcome.error = summarize(part.error);
      }
    }
  };
  events.forEach((event, index) => observe(decoder.push(event), index, false));
  observe(decoder.end(), events.length, true);
  return outcome;
}

/**
 * `peek`: read `usage` after every event (generate-content reads held chunks lazily; both ways
 * must agree). `skipping`: as the router's skipping reader uses a monitor that has
 * skippablePrefix, on the events written out as SSE text: before each event, the run it finds
 * from there is passed over unpushed.
 */
function monitor(format: FormatId, events: readonly SseEvent[], peek: boolean, skipping = false): Outcome {
  const relay = wireFormats[format].stream.createRelayMonitor();
  const outcome: Outcome = { finishAt: undefined, usage: undefined, errorAt: undefined, error: undefined, endError: undefined };
  const observe = (at: number) => {
    if (peek) void relay.usage;
    if (relay.finished && outcome.finishAt === undefined) {
      outcome.finishAt = at;
      outcome.usage = relay.usage;
    }
    if (relay.error !== undefined && outcome.errorAt === undefined) {
      outcome.errorAt = at;
      outcome.error = summarize(relay.error);
    }
  };
  const texts = events.map((event) => formatSseEvent(event.data, event.event));
  const starts = [0];
  for (const text of texts) starts.push((starts.at(-1) as number) + text.length);
  const whole = texts.join('');
  let index = 0;
  while (index < events.length) {
    const run = skipping ? relay.skippablePrefix?.(whole.slice(starts[index])) : undefined;
    if (run !== undefined && run.events > 0) {
      expect(run.end, 'a run ends on an event boundary').toBe((starts[index + run.events] as number) - (starts[index] as number));
      index += run.events;
      continue;
    }
    relay.push(events[index] as SseEvent);
    observe(index);
    index++;
  }
  outcome.endError = summarize(relay.end());
  observe(events.length);
  // Usage is final from the finish on: nothing after it changes it.
  if (outcome.finishAt !== undefined) expect(relay.usage).toEqual(outcome.usage);
  return outcome;
}

function expectAgreement(format: FormatId, events: readonly SseEvent[]): Outcome {
  const decoded = decode(format, events);
  expect(monitor(format, events, false)).toEqual(decoded);
  expect(monitor(format, events, true)).toEqual(decoded);
  expect(monitor(format, events, false, true)).toEqual(decoded);
  return decoded;
}

function fixtureNames(format: FormatId): string[] {
  return readdirSync(new URL(`./${format}/__fixtures__/`, import.meta.url)).filter((name) => name.endsWith('.chunks.txt'));
}

function fixtureEvents(format: FormatId, name: string): SseEvent[] {
  return parseSse(readFileSync(new URL(`./${format}/__fixtures__/${name}`, import.meta.url), 'utf8'));
}

/** Each event's JSON without its usage (top level, in messages' `message`, in Responses' `response`). */
function withoutUsage(events: readonly SseEvent[]): SseEvent[] {
  return events.map((event) => {
    let value: unknown;
    try {
      value = JSON.parse(event.data);
    } catch {
      return event;
    }
    const strip = (record: unknown) => {
      if (typeof record !== 'object' || record === null) return;
      delete (record as Record<string, unknown>).usage;
      delete (record as Record<string, unknown>).usageMetadata;
    };
    strip(value);
    if (typeof value === 'object' && value !== null) {
      strip((value as Record<string, unknown>).message);
      strip((value as Record<string, unknown>).response);
    }
    return { ...event, data: JSON.stringify(value) };
  });
}

/** The same events with blanks around every key and value (multi-line data, as Python's json.dumps(indent=1) writes). */
function prettyPrinted(events: readonly SseEvent[]): SseEvent[] {
  return events.map((event) => {
    try {
      return { ...event, data: JSON.stringify(JSON.parse(event.data), null, 1) };
    } catch {
      return event;
    }
  });
}

function errorEvents(format: FormatId): SseEvent[] {
  return parseSse(wireFormats[format].errors.renderStreamError(new GatewayError('rate_limited', 'Slow "down".'), 'req_1'));
}

/** Text that quotes, inside content, every key and type the monitors look for. */
const TRICKY =
  'Quoting: "usage":{"prompt_tokens":9,"completion_tokens":9}, "finish_reason":"stop", "error":{"message":"x"}, ' +
  '{"type":"message_stop"} {"type":"response.completed","response":{"usage":{"input_tokens":1}}} ' +
  '"finishReason":"STOP", "blockReason":"SAFETY", "usageMetadata":{"promptTokenCount":1}, data: [DONE]\n\n' +
  'event: error\ndata: {"error":{}}\n\n';

const FULL_USAGE: CanonicalUsage = { inputTokens: 1200, outputTokens: 80, cacheReadTokens: 1000, cacheWriteTokens: 100, reasoningTokens: 30 };

/** Canonical streams, encoded by each format's own encoder into what its upstream sends. */
const CANONICAL_STREAMS: Record<string, StreamPart[]> = {
  'text quoting the watched keys, usage with cache and reasoning details': [
    { type: 'start', id: 'a1', model: 'm', created: 1_760_000_000, usage: { inputTokens: 1200, cacheReadTokens: 1000, cacheWriteTokens: 100 } },
    { type: 'reasoning-delta', text: `Thinking. ${TRICKY}` },
    { type: 'reasoning-end', signature: { origin: 'messages', value: 'sig' } },
    ...TRICKY.split(', ').map((text): StreamPart => ({ type: 'text-delta', text })),
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: FULL_USAGE },
  ],
  'tool calls with arguments quoting the watched keys': [
    { type: 'start', id: 'a2', model: 'm', created: 1_760_000_000, usage: { inputTokens: 50 } },
    { type: 'text-delta', text: 'Calling.' },
    { type: 'tool-call-start', index: 0, id: 'call_1', name: 'lookup' },
    { type: 'tool-call-delta', index: 0, argumentsDelta: '{"usage":{"prompt_tokens":3},"error":{"code":1},' },
    { type: 'tool-call-delta', index: 0, argumentsDelta: '"finish_reason":"stop","usageMetadata":{"promptTokenCount":2}}' },
    { type: 'tool-call-end', index: 0 },
    { type: 'tool-call-start', index: 1, id: 'call_2', name: 'lookup' },
    { type: 'tool-call-delta', index: 1, argumentsDelta: '{"q":"x"}' },
    { type: 'tool-call-end', index: 1 },
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: { inputTokens: 50, outputTokens: 12 } },
  ],
  'an error after some text': [
    { type: 'start', id: 'a3', model: 'm', created: 1_760_000_000 },
    { type: 'text-delta', text: 'Partial answer' },
    { type: 'error', error: new GatewayError('overloaded', 'Overloaded "now".', { upstreamType: 'overloaded_error' }) },
  ],
};

function encoded(format: FormatId, parts: readonly StreamPart[]): SseEvent[] {
  const encoder = wireFormats[format].stream.createEncoder({ model: 'm', requestId: 'req_1', includeUsage: true, includeReasoning: true });
  return parseSse(parts.map((part) => encoder.push(part)).join(''));
}

const data = (...texts: string[]): SseEvent[] => texts.map((text) => ({ data: text }));
const named = (event: string, text: string): SseEvent => ({ event, data: text });

const chatChunk = (fields: Record<string, unknown>) => JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', ...fields });
const chatDelta = (delta: Record<string, unknown>, finish: string | null = null, usage: unknown = null) =>
  chatChunk({ choices: [{ index: 0, delta, finish_reason: finish }], usage });
const chatUsage = { prompt_tokens: 20, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 8, cache_write_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 2 } };

const messagesEvent = (type: string, fields: Record<string, unknown> = {}): SseEvent => named(type, JSON.stringify({ type, ...fields }));
const messageStart = (usage: unknown) => messagesEvent('message_start', { message: { id: 'msg_1', model: 'm', usage } });
const textBlock = [
  messagesEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  messagesEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
  messagesEvent('content_block_stop', { index: 0 }),
];

const responsesEvent = (type: string, fields: Record<string, unknown> = {}): SseEvent => named(type, JSON.stringify({ type, ...fields }));
const responsesText = [
  responsesEvent('response.created', { response: { id: 'resp_1', model: 'm', status: 'in_progress', usage: null } }),
  responsesEvent('response.output_text.delta', { item_id: 'msg_1', delta: 'Hi' }),
];
const responsesUsage = { input_tokens: 40, input_tokens_details: { cached_tokens: 30, cache_write_tokens: 5 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 4 } };

const geminiChunk = (fields: Record<string, unknown>) => JSON.stringify({ modelVersion: 'g', responseId: 'r', ...fields });
const geminiText = (text: string, extra: Record<string, unknown> = {}, finishReason?: string) =>
  geminiChunk({ candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(finishReason && { finishReason }) }], ...extra });
const geminiUsage = (candidates: number) => ({ usageMetadata: { promptTokenCount: 30, candidatesTokenCount: candidates, thoughtsTokenCount: 3, cachedContentTokenCount: 10, totalTokenCount: 33 + candidates } });

/** Streams the fixtures do not have, per format. */
const HAND_WRITTEN: Record<FormatId, Record<string, SseEvent[]>> = {
  'chat-completions': {
    'usage on every chunk (continuous usage stats): finish on the finish chunk': data(
      chatDelta({ role: 'assistant', content: '' }, null, chatUsage),
      chatDelta({ content: 'Hi' }, null, chatUsage),
      chatDelta({}, 'stop', chatUsage),
      chatDelta({}, null, { ...chatUsage, completion_tokens: 6 }),
      '[DONE]',
    ),
    'usage before the finish reason: finish at [DONE]': data(chatDelta({ content: 'Hi' }, null, chatUsage), chatDelta({}, 'length'), '[DONE]'),
    'no usage at all: finish at [DONE]': data(chatDelta({ content: 'Hi' }), chatDelta({}, 'stop'), '[DONE]'),
    'no finish reason: finish at [DONE]': data(chatDelta({ content: 'Hi' }), '[DONE]'),
    'prompt-filter chunk first (Azure), usage chunk last': data(
      chatChunk({ choices: [], prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }] }),
      chatDelta({ content: 'Hi' }),
      chatDelta({}, 'stop'),
      chatChunk({ choices: [], usage: chatUsage }),
      '[DONE]',
    ),
    '[DONE] before any answer': data(chatChunk({ choices: [] }), '[DONE]'),
    'a content filter error nested in a chunk is no error': data(
      chatChunk({ choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null, content_filter_results: { error: { code: 'x', message: 'y' } } }] }),
      chatDelta({}, 'stop'),
      '[DONE]',
    ),
    'an error event whose data is not JSON': [{ data: chatDelta({ content: 'Hi' }) }, named('error', 'upstream exploded')],
    'an error event with JSON and no error key': [{ data: chatDelta({ content: 'Hi' }) }, named('error', '{"message":"bad"}')],
    'an error chunk with a plain-string error': data(chatDelta({ content: 'Hi' }), '{"error":"overloaded"}'),
    'a chunk that is not JSON': data(chatDelta({ content: 'Hi' }), '<html>bad gateway</html>'),
    'a finish chunk that is not a chat chunk': data(chatDelta({ content: 'Hi' }), chatChunk({ choices: [{ index: 0, delta: {}, finish_reason: 5 }] })),
    'two choices, the finish on the first listed': data(
      chatChunk({ choices: [{ index: 1, delta: { content: 'B' }, finish_reason: null }, { index: 0, delta: { content: 'A' }, finish_reason: null }] }),
      chatChunk({ choices: [{ index: 1, delta: {}, finish_reason: 'stop' }] }),
      chatChunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      chatChunk({ choices: [], usage: chatUsage }),
      '[DONE]',
    ),
  },
  messages: {
    'input counts repeated in message_delta (recent API versions), nulls as unchanged': [
      messageStart({ input_tokens: 10, cache_creation_input_tokens: 5, cache_read_input_tokens: 100, output_tokens: 1 }),
      ...textBlock,
      messagesEvent('message_delta', {
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { input_tokens: 10, cache_creation_input_tokens: null, cache_read_input_tokens: 100, output_tokens: 20, output_tokens_details: { thinking_tokens: 7 } },
      }),
      messagesEvent('message_stop'),
    ],
    'no usage anywhere': [
      messageStart(null),
      ...textBlock,
      messagesEvent('message_delta', { delta: { stop_reason: 'end_turn' } }),
      messagesEvent('message_stop'),
    ],
    'usage only in message_start': [messageStart({ input_tokens: 7, output_tokens: 1 }), ...textBlock, messagesEvent('message_stop')],
    'a ping whose data is not JSON': [messageStart({ input_tokens: 7 }), named('ping', 'not json'), messagesEvent('message_stop')],
    'an event that is not a JSON object': [messageStart({ input_tokens: 7 }), ...textBlock, named('message_delta', '[1,2]')],
    'a content event written in another key order': [
      messageStart({ input_tokens: 7 }),
      named('content_block_delta', '{"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}'),
      messagesEvent('message_delta', { usage: { output_tokens: 3 } }),
      messagesEvent('message_stop'),
    ],
    'an error event without an error object': [messageStart({ input_tokens: 7 }), messagesEvent('error')],
    'events after message_stop are ignored': [
      messageStart({ input_tokens: 7 }),
      messagesEvent('message_stop'),
      messagesEvent('message_delta', { usage: { output_tokens: 99 } }),
      messagesEvent('error', { error: { type: 'overloaded_error', message: 'late' } }),
    ],
  },
  responses: {
    'completed without usage': [...responsesText, responsesEvent('response.completed', { response: { status: 'completed' } })],
    'incomplete with usage details': [
      ...responsesText,
      responsesEvent('response.incomplete', { response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: responsesUsage } }),
    ],
    'usage without counts': [...responsesText, responsesEvent('response.completed', { response: { status: 'completed', usage: { total_tokens: 5 } } })],
    'the terminal type only in the event name': [...responsesText, named('response.completed', JSON.stringify({ response: { usage: responsesUsage } }))],
    'response.failed': [
      ...responsesText,
      responsesEvent('response.failed', { response: { status: 'failed', error: { code: 'rate_limit_exceeded', message: 'Too fast.' } } }),
    ],
    'an error event nesting its payload': [...responsesText, responsesEvent('error', { error: { code: 'server_error', message: 'Boom.', param: 'x' } })],
    'an unreadable event': [...responsesText, named('response.output_text.delta', 'not json')],
    'a delta whose type is written with an escape': [
      ...responsesText,
      named('response.completed', '{"type":"response.complet\\u0065d","response":{"usage":{"input_tokens":3,"output_tokens":4}}}'),
    ],
    'a type not first in the event': [...responsesText, named('x', JSON.stringify({ sequence_number: 9, type: 'response.completed', response: { usage: responsesUsage } }))],
  },
  'generate-content': {
    'usage on more chunks than are held unparsed, finish reason on the last': data(
      ...Array.from({ length: 20 }, (_, index) => geminiText(`w${index} `, geminiUsage(index + 1), index === 19 ? 'STOP' : undefined)),
    ),
    'the last usage-looking chunk only nests the key (tool arguments)': data(
      ...Array.from({ length: 11 }, (_, index) => geminiText(`w${index} `, geminiUsage(index + 1))),
      geminiChunk({
        candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'f', args: { usageMetadata: { promptTokenCount: 999 } } } }] }, finishReason: 'STOP' }],
      }),
      geminiChunk({ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'f', args: { usageMetadata: { candidatesTokenCount: 5 } } } }] } }] }),
    ),
    'usage null on the last chunk': data(geminiText('a', geminiUsage(1)), geminiText('b', { usageMetadata: null }, 'STOP')),
    'finish reason on every chunk': data(geminiText('a', geminiUsage(1), 'STOP'), geminiText('b', geminiUsage(2), 'STOP')),
    'a block reason only': data(geminiChunk({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 12 } })),
    'a block reason after a first chunk': data(geminiText('a'), geminiChunk({ promptFeedback: { blockReason: 'OTHER' } })),
    'no usage at all': data(geminiText('a'), geminiText('b', {}, 'MAX_TOKENS')),
    'no finish reason': data(geminiText('a', geminiUsage(1)), geminiText('b', geminiUsage(2))),
    'an error envelope first': data('{"error":{"code":503,"message":"Unavailable.","status":"UNAVAILABLE"}}'),
    'blank events': data('', geminiText('a', geminiUsage(1)), '  ', geminiText('b', geminiUsage(2), 'STOP'), ''),
    'a chunk that is not JSON': data(geminiText('a', geminiUsage(1)), 'not json'),
    'a chunk that is not a response, with a finish reason': data(geminiText('a'), geminiChunk({ candidates: [{ finishReason: 7 }] })),
    'an error object that is not the envelope': data(geminiText('a', geminiUsage(1)), geminiChunk({ error: 'oops', candidates: [] })),
  },
};

describe.each(FORMATS)('%s relay monitor', (format) => {
  describe.each(fixtureNames(format))('fixture %s', (name) => {
    const events = fixtureEvents(format, name);

    it('should agree with the decoder on the whole stream', () => {
      expectAgreement(format, events);
    });

    it('should agree when the stream is cut at every event boundary', () => {
      for (let length = 0; length < events.length; length++) expectAgreement(format, events.slice(0, length));
    });

    it('should agree without usage', () => {
      expectAgreement(format, withoutUsage(events));
    });

    it('should agree with blanks around every key and value', () => {
      expectAgreement(format, prettyPrinted(events));
    });

    it('should agree when any one event is cut mid-JSON (an upstream dying mid-write)', () => {
      events.forEach((event, index) => {
        // Cut where the text does not happen to end in `}`: see the blind spot below.
        let cut = Math.floor(event.data.length / 2);
        while (cut > 0 && event.data[cut - 1] === '}') cut--;
        expectAgreement(format, [...events.slice(0, index), { ...event, data: event.data.slice(0, cut) }, ...events.slice(index + 1)]);
      });
    });

    it('should agree with an error event at every position', () => {
      for (let at = 0; at <= events.length; at++) {
        const outcome = expectAgreement(format, [...events.slice(0, at), ...errorEvents(format), ...events.slice(at)]);
        // The error counts unless the answer had finished or failed before it (then both ignore it).
        const endedBefore = (outcome.finishAt ?? Infinity) < at || (outcome.errorAt ?? Infinity) < at;
        expect(outcome.errorAt === at || endedBefore).toBe(true);
      }
    });
  });

  describe.each(Object.entries(CANONICAL_STREAMS))('encoded stream: %s', (_, parts) => {
    it('should agree with the decoder, whole and cut at every event boundary', () => {
      const events = encoded(format, parts);
      const outcome = expectAgreement(format, events);
      const finish = parts.find((part) => part.type === 'finish');
      if (finish !== undefined) expect(outcome.finishAt).toBeDefined();
      for (let length = 0; length < events.length; length++) expectAgreement(format, events.slice(0, length));
    });
  });

  describe.each(Object.entries(HAND_WRITTEN[format]))('%s', (_, events) => {
    it('should agree with the decoder, whole and cut at every event boundary', () => {
      for (let length = 0; length <= events.length; length++) expectAgreement(format, events.slice(0, length));
    });
  });
});

describe('relay monitor outcomes (spot checks of what the agreement covers)', () => {
  it('should finish chat on the usage chunk after the finish reason, with its usage', () => {
    const outcome = expectAgreement('chat-completions', fixtureEvents('chat-completions', 'text.chunks.txt'));
    const events = fixtureEvents('chat-completions', 'text.chunks.txt');
    expect(outcome.finishAt).toBe(events.length - 2);
    expect(outcome.usage).toEqual({ inputTokens: 1940, outputTokens: 10, cacheReadTokens: 1920, reasoningTokens: 0 });
  });

  it('should merge messages usage across message_start and message_delta', () => {
    const outcome = expectAgreement('messages', fixtureEvents('messages', 'text.chunks.txt'));
    expect(outcome.usage).toEqual({ inputTokens: 1049, outputTokens: 9, cacheReadTokens: 1024, cacheWriteTokens: 0 });
  });

  it('should finish generate-content at EOF with the last usage snapshot', () => {
    const events = fixtureEvents('generate-content', 'thinking.chunks.txt');
    const outcome = expectAgreement('generate-content', events);
    expect(outcome.finishAt).toBe(events.length);
    expect(outcome.usage).toEqual({ inputTokens: 40, outputTokens: 35, cacheReadTokens: 16, reasoningTokens: 31 });
  });

  it('should report a truncated Responses stream from end()', () => {
    const events = fixtureEvents('responses', 'text.chunks.txt').slice(0, 4);
    expect(expectAgreement('responses', events).endError).toMatchObject({ kind: 'upstream_error' });
  });

  it('should give the in-band error with its kind and status', () => {
    const events = [...fixtureEvents('messages', 'text.chunks.txt').slice(0, 4), ...errorEvents('messages')];
    expect(expectAgreement('messages', events).error).toMatchObject({ kind: 'rate_limited', status: 429, message: 'Slow "down".' });
  });
});

describe('relay monitor blind spot (by design: noticing it would mean parsing every content event)', () => {
  it('should relay a malformed content event that looks like an object without noticing it, as documented on RelayMonitor', () => {
    const events = data(chatDelta({ content: 'Hi' }), chatDelta({ content: 5 }), chatDelta({}, 'stop'), '[DONE]');
    expect(decode('chat-completions', events).error).toMatchObject({ message: 'The upstream sent a stream event that is not a chat completion chunk.' });
    expect(monitor('chat-completions', events, false)).toMatchObject({ error: undefined, finishAt: 3 });
  });
});
