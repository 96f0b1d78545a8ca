import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { GatewayError, type FormatId, type StreamPart } from '@switchyard/canonical';
import { wireFormats, type WireFormat } from '@switchyard/formats';
import type { UpstreamResponse } from '@switchyard/providers';
import { afterEach, describe, expect, it } from 'vitest';
import { ActiveStreams } from './active-streams.ts';
import { KeepAlives } from './keep-alives.ts';
import type { Exchange } from './exchange.ts';
import { streamAnswer, type StreamOptions, type StreamResult } from './stream-answer.ts';

const WORDS = Array.from({ length: 50 }, (_, index) => `word${index} `);

/** A messages stream as an upstream sends it, in one piece. */
function messagesStream(): string {
  return encodedStream('messages');
}

/** A stream of `format` as its upstream sends it, in one piece: the start, the words, the finish with usage. */
function encodedStream(format: FormatId): string {
  const encoder = wireFormats[format].stream.createEncoder({ model: 'm', requestId: 'req_1' });
  const parts: StreamPart[] = [
    { type: 'start', id: 'msg_1', model: 'm', created: 1_760_000_000 },
    ...WORDS.map((text): StreamPart => ({ type: 'text-delta', text })),
    { type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' }, usage: { inputTokens: 30, outputTokens: WORDS.length } },
  ];
  return parts.map((part) => encoder.push(part)).join('');
}

/** A chat stream as an upstream sends it, in one piece: role, content, finish and usage chunks, then [DONE]. */
function chatStream(): string {
  const encoder = wireFormats['chat-completions'].stream.createEncoder({ model: 'm', requestId: 'req_1', includeUsage: true });
  const parts: StreamPart[] = [
    { type: 'start', id: 'chatcmpl-1', model: 'm', created: 1_760_000_000 },
    ...WORDS.map((text): StreamPart => ({ type: 'text-delta', text: `${text}ø🚂` })),
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: { inputTokens: 30, outputTokens: WORDS.length } },
  ];
  return parts.map((part) => encoder.push(part)).join('');
}

/** An upstream answer whose body is read in one chunk; `onRead` sees each buffer handed to the reader. */
function upstreamAnswer(text: string, onRead: (chunk: Buffer) => void = () => {}): UpstreamResponse {
  return {
    statusCode: 200,
    headers: { 'content-type': 'text/event-stream' },
    body: {
      text: () => Promise.resolve(text),
      forEach: (onChunk) => {
        // Not Buffer.from(text), which may place it in a buffer shared with others.
        const chunk = Buffer.alloc(Buffer.byteLength(text));
        chunk.write(text);
        onRead(chunk);
        onChunk(chunk);
        return Promise.resolve();
      },
      destroy: () => undefined,
    },
  };
}

/** A client of an upstream of its own format (chat-completions unless named), relayed as it came. */
function sameFormatExchange(includeUsage: boolean, format: WireFormat = wireFormats['chat-completions']): Exchange {
  return {
    request: { identity: { requestId: 'req_1' }, headers: {}, signal: new AbortController().signal },
    clientFormat: format,
    upstreamFormat: format,
    sameFormat: true,
    canonical: { model: 'm', stream: true, includeUsage },
    warnings: [],
    answerId: undefined,
  } as unknown as Exchange;
}

/** A chat-completions client of a messages upstream; only what streamAnswer reads of an exchange. */
function translatedExchange(upstreamFormat: WireFormat): Exchange {
  return {
    request: { identity: { requestId: 'req_1' }, headers: {}, signal: new AbortController().signal },
    clientFormat: wireFormats['chat-completions'],
    upstreamFormat,
    sameFormat: false,
    canonical: { model: 'm', stream: true, includeUsage: true },
    warnings: [],
    answerId: undefined,
  } as unknown as Exchange;
}

/** Whether `ref`'s target survives two full collections, each after a turn (what a wait for the usage gives a scavenge). */
async function heldAfterCollecting(ref: WeakRef<object> | undefined): Promise<boolean> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  await sleep(0);
  gc();
  await sleep(0);
  gc();
  return ref?.deref() !== undefined;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** Serves one streamed answer on loopback and reads it as a client would. */
async function relayed(exchange: Exchange, upstream: UpstreamResponse, options: Omit<StreamOptions, 'keepAlives' | 'activeStreams'>) {
  let result: Promise<StreamResult> | undefined;
  const server = createServer((_request, response) => {
    result = streamAnswer(exchange, upstream, response, { 'x-request-id': 'req_1' }, {
      keepAlives: new KeepAlives(15_000),
      activeStreams: new ActiveStreams(),
      ...options,
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  const body = await answer.text();
  return { body, result: await (result as Promise<StreamResult>) };
}

describe('streamAnswer', () => {
  it('translates the stream and, while the usage is made durable, holds nothing of the relay but what is left to send', async () => {
    let decoder: WeakRef<object> | undefined;
    const upstreamFormat: WireFormat = {
      ...wireFormats.messages,
      stream: {
        ...wireFormats.messages.stream,
        createDecoder: () => {
          const created = wireFormats.messages.stream.createDecoder();
          decoder = new WeakRef(created);
          return created;
        },
      },
    };
    let decoderHeldWhileWaiting: boolean | undefined;
    const { body, result } = await relayed(translatedExchange(upstreamFormat), upstreamAnswer(messagesStream()), {
      watchOnly: false,
      // Under Redis the wait is a round trip, long enough for a scavenge to carry whatever the
      // relay still holds into the old generation.
      beforeEnd: async () => {
        decoderHeldWhileWaiting = await heldAfterCollecting(decoder);
      },
    });

    expect(decoder).toBeDefined();
    expect(decoderHeldWhileWaiting).toBe(false);
    const chunks = body
      .split('\n\n')
      .filter((event) => event.startsWith('data: {'))
      .map((event) => JSON.parse(event.slice('data: '.length)) as { choices: { delta: { content?: string }; finish_reason: string | null }[] });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(WORDS.join(''));
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason === 'stop')).toBe(true);
    expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(result.error).toBeUndefined();
    expect(result.usage).toMatchObject({ inputTokens: 30, outputTokens: WORDS.length });
    expect(result.answer?.content).toEqual([{ type: 'text', text: WORDS.join('') }]);
    expect(result.generatedText()).toBe(WORDS.join(''));
  });

  it('lets the whole answer out when a shutdown comes while its usage is being made durable', async () => {
    const activeStreams = new ActiveStreams();
    let release: (() => void) | undefined;
    const server = createServer((_request, response) => {
      void streamAnswer(translatedExchange(wireFormats.messages), upstreamAnswer(messagesStream()), response, {}, {
        keepAlives: new KeepAlives(15_000),
        activeStreams,
        watchOnly: false,
        beforeEnd: () => new Promise<void>((resolve) => (release = resolve)),
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const reader = (answer.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    let received = '';
    await expect.poll(() => release !== undefined).toBe(true);
    activeStreams.terminateAll(new GatewayError('unavailable', 'shutting down'));
    // The end arrives though beforeEnd has not settled, and no error event with it.
    while (!received.includes('data: [DONE]')) {
      const read = await reader.read();
      if (read.done) break;
      received += read.value;
    }
    expect(received).toContain('data: [DONE]');
    expect(received).not.toContain('"error"');
    (release as () => void)();
    while (!(await reader.read()).done);
  });

  it('relays a watched same-format stream byte for byte, and waits for the usage holding only what is left to send, not the read it came in', async () => {
    const text = chatStream();
    let read: WeakRef<ArrayBuffer> | undefined;
    let readHeldWhileWaiting: boolean | undefined;
    const { body, result } = await relayed(
      sameFormatExchange(true),
      upstreamAnswer(text, (chunk) => (read = new WeakRef(chunk.buffer as ArrayBuffer))),
      {
        watchOnly: true,
        beforeEnd: async () => {
          readHeldWhileWaiting = await heldAfterCollecting(read);
        },
      },
    );
    expect(read).toBeDefined();
    expect(readHeldWhileWaiting).toBe(false);
    expect(body).toBe(text);
    expect(result.error).toBeUndefined();
    expect(result.usage).toMatchObject({ inputTokens: 30, outputTokens: WORDS.length });
    expect(result.events).toBe(WORDS.length + 4);
  });

  // Google frames its events with CRLF, which re-framing would change.
  const geminiStream = () => encodedStream('generate-content').replaceAll('\n', '\r\n');

  it.each([
    ['watched', 'messages', messagesStream()],
    ['watched', 'responses', encodedStream('responses')],
    ['watched', 'generate-content', geminiStream()],
    // A Responses answer the router keeps.
    ['decoded', 'responses', encodedStream('responses')],
    // A deployment known to send no usage: its text is decoded to estimate it.
    ['decoded', 'generate-content', geminiStream()],
  ] as const)('relays a %s %s stream byte for byte, with its usage', async (how, format, text) => {
    const { body, result } = await relayed(sameFormatExchange(true, wireFormats[format]), upstreamAnswer(text), {
      watchOnly: how === 'watched',
      beforeEnd: () => Promise.resolve(),
    });
    expect(body).toBe(text);
    expect(result.error).toBeUndefined();
    expect(result.usage).toMatchObject({ inputTokens: 30, outputTokens: WORDS.length });
    // A watched stream counts its events (the estimate of one without usage); a decoded one has its answer.
    if (how === 'watched') expect(result.events).toBe(text.split(/\r?\n\r?\n/).length - 1);
    else expect(result.answer?.content).toEqual([{ type: 'text', text: WORDS.join('') }]);
  });

  it("drops the usage chunk the client did not ask for, and ends a stream cut off after its content with the format's error event", async () => {
    const text = chatStream();
    const cut = text.slice(0, text.indexOf('"finish_reason":"stop"'));
    const whole = cut.slice(0, cut.lastIndexOf('\n\n') + 2);
    const { body, result } = await relayed(sameFormatExchange(false), upstreamAnswer(whole), { watchOnly: true, beforeEnd: () => Promise.resolve() });
    expect(result.error?.kind).toBe('upstream_error');
    expect(result.upstreamBroke).toBe(true);
    expect(body.startsWith(whole)).toBe(true);
    const tail = body.slice(whole.length);
    expect(tail).toMatch(/^data: \{"error":\{.*\}\}\n\n$/s);
    expect(tail).not.toContain('[DONE]');

    const { body: withoutUsage } = await relayed(sameFormatExchange(false), upstreamAnswer(text), { watchOnly: true, beforeEnd: () => Promise.resolve() });
    expect(withoutUsage).not.toContain('"choices":[]');
    expect(withoutUsage).toBe(text.split('\n\n').filter((event) => !event.includes('"choices":[]')).join('\n\n'));
  });
});
