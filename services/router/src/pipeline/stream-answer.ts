import type { ServerResponse } from 'node:http';
import type { CanonicalResponse, GatewayError, StreamPart } from '@switchyard/canonical';
import { createSseParser, formatSseEvent, type SseEvent } from '@switchyard/sse';
import type { Dispatcher } from 'undici';
import { StreamAccumulator } from './accumulate-stream.ts';
import type { ActiveStreams } from './active-streams.ts';
import { clientResponseContext } from './response-context.ts';
import { transportError } from './call-upstream.ts';
import type { Exchange } from './exchange.ts';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  // Defeats nginx response buffering in front of us (protocols.md §2).
  'x-accel-buffering': 'no',
} as const;

export interface StreamResult {
  /** The whole answer the stream carried, when it finished. */
  answer: CanonicalResponse | undefined;
  /** What was generated, finished or not (for estimates). */
  generatedText: () => string;
  error: GatewayError | undefined;
  firstByteAt: number | undefined;
}

/**
 * Relays an upstream SSE stream to the client. Translated streams go decoder → canonical parts
 * → encoder. Same-format streams are re-framed event by event with the data text untouched
 * (no JSON re-encoding); the decoder still runs beside them to read usage and to notice a
 * truncated stream, which is then closed with the format's error event rather than left to
 * look like success (protocols.md §7.3).
 *
 * From the event that finishes the answer on, output is held back until `beforeEnd` has made
 * durable what must outlive this process (the usage event): a client that saw the end of its
 * answer is then always counted, even if the router dies right after (issue 7).
 */
export async function streamAnswer(
  exchange: Exchange,
  upstream: Dispatcher.ResponseData,
  response: ServerResponse,
  headers: Record<string, string>,
  keepAliveMs: number,
  activeStreams: ActiveStreams,
  beforeEnd: (result: StreamResult) => Promise<void>,
): Promise<StreamResult> {
  const { clientFormat, upstreamFormat, sameFormat, request } = exchange;
  const requestId = request.identity.requestId;
  response.writeHead(200, { ...SSE_HEADERS, ...headers });
  response.flushHeaders();

  const decoder = upstreamFormat.stream.createDecoder();
  const encoder = sameFormat ? undefined : clientFormat.stream.createEncoder(clientResponseContext(exchange));
  // Same-format chat streams had include_usage forced on; the client gets the usage chunk only if it asked.
  const dropUsageChunk = sameFormat && clientFormat.id === 'chat-completions' && exchange.canonical.includeUsage !== true;

  const accumulator = new StreamAccumulator();
  const result: StreamResult = { answer: undefined, generatedText: () => accumulator.generatedText(), error: undefined, firstByteAt: undefined };
  let upstreamErrorRelayed = false;
  let quiet = true;
  /** The answer's finish was seen: what follows waits for beforeEnd. */
  let finished = false;

  // Everything one upstream read produced goes out in one socket write (flush after each
  // read): per-event writes were a sixth of a stream's CPU (docs/performance.md).
  let pending = '';
  const write = (text: string) => {
    pending += text;
  };
  const flush = () => {
    if (pending.length === 0) return;
    if (result.firstByteAt === undefined) result.firstByteAt = performance.now();
    quiet = false;
    response.write(pending);
    pending = '';
  };
  // Whole events only are ever written, so a keep-alive can never land inside one. The timer
  // lives only while the upstream is being read: a dead upstream is not masked by pings.
  const keepAlive = setInterval(() => {
    if (quiet) response.write(clientFormat.stream.keepAlive);
    quiet = true;
  }, keepAliveMs);

  const observe = (parts: StreamPart[]): string => {
    let out = '';
    for (const part of parts) {
      // The router names answers it keeps state for (stored Responses).
      if (part.type === 'start' && exchange.answerId !== undefined) part.id = exchange.answerId;
      else if (part.type === 'error') result.error = part.error;
      else if (part.type === 'finish') finished = true;
      accumulator.push(part);
      if (encoder !== undefined) out += encoder.push(part);
    }
    return out;
  };

  const onEvent = (event: SseEvent) => {
    const parts = decoder.push(event);
    if (sameFormat) {
      if (parts.some((part) => part.type === 'error')) upstreamErrorRelayed = true;
      if (!(dropUsageChunk && event.data.includes('"choices":[]'))) write(formatSseEvent(event.data, event.event));
    }
    write(observe(parts));
  };

  const parser = createSseParser(onEvent);
  let terminated = false;
  const forget = activeStreams.add((error) => {
    terminated = true;
    if (finished) {
      // The answer is whole: let it out rather than end it with an error.
      flush();
      return;
    }
    result.error = error;
    write(encoder === undefined ? clientFormat.errors.renderStreamError(error, requestId) : encoder.push({ type: 'error', error }));
    flush();
    upstream.body.destroy();
  });
  try {
    for await (const chunk of upstream.body) {
      parser.push(chunk as Buffer);
      if (!finished) flush();
    }
    parser.end();
    const tail = decoder.end();
    const text = observe(tail);
    if (sameFormat && result.error !== undefined && !upstreamErrorRelayed) {
      write(clientFormat.errors.renderStreamError(result.error, requestId));
    } else {
      write(text);
    }
  } catch (error) {
    const failure = transportError(error, request.signal);
    if (!terminated) result.error = failure;
    if (!terminated && failure.kind !== 'client_closed') {
      write(encoder === undefined ? clientFormat.errors.renderStreamError(failure, requestId) : encoder.push({ type: 'error', error: failure }));
    }
  }
  clearInterval(keepAlive);
  result.answer = accumulator.response;
  if (!terminated) await beforeEnd(result);
  flush();
  forget();
  response.end();
  return result;
}
