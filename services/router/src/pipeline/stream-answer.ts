import type { CanonicalResponse, CanonicalUsage, GatewayError, StreamPart } from '@switchyard/canonical';
import { createSseParser, formatSseEvent, type SseEvent } from '@switchyard/sse';
import type { StreamDecoder, AnswerWriter } from '@switchyard/formats';
import type { UpstreamResponse } from '@switchyard/providers';
import { StreamAccumulator } from './accumulate-stream.ts';
import { createSkippingReader } from './read-skipping.ts';
import type { ActiveStreams } from './active-streams.ts';
import type { KeepAlives, QuietStream } from './keep-alives.ts';
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
  /** The whole answer the stream carried, when it finished and was decoded. */
  answer: CanonicalResponse | undefined;
  /** The upstream's usage, when it sent one. */
  usage: CanonicalUsage | undefined;
  /** What was generated, finished or not (for estimates; empty when only watched). */
  generatedText: () => string;
  /** Events relayed: the output estimate of a watched stream without usage (about one token each). */
  events: number;
  /** What ended the stream short, if anything: the upstream, the client or a shutdown. */
  error: GatewayError | undefined;
  /** The upstream broke the stream (an error event, a cut-off, a failed read), not the client or a shutdown. */
  upstreamBroke: boolean;
  firstByteAt: number | undefined;
}

export interface StreamOptions {
  keepAlives: KeepAlives;
  activeStreams: ActiveStreams;
  /** Called before the answer's end leaves (see streamAnswer). */
  beforeEnd: (result: StreamResult) => Promise<void>;
  /**
   * Same-format streams whose answer is not needed: watch them with the format's relay monitor
   * (usage, finish, errors, truncation) instead of decoding every event.
   */
  watchOnly: boolean;
}

/**
 * What a stream has written and not yet sent. Everything one upstream read produced goes out in
 * one socket write (flush after each read): per-event writes were a sixth of a stream's CPU
 * (docs/performance.md). What is relayed as it came stays bytes, a view of the upstream's read
 * while it is one stretch of it; text and bytes are joined only when a stream writes both
 * between two flushes (an error event after a run, say).
 */
class StreamOutput implements QuietStream {
  #text = '';
  /** Bytes held: `#source` from `#from` to `#to`, one stretch of an upstream read relayed as it came. */
  #source: Buffer | undefined;
  #from = 0;
  #to = 0;
  sent = false;

  readonly response: AnswerWriter;
  readonly result: StreamResult;
  readonly #keepAlive: string;

  constructor(response: AnswerWriter, result: StreamResult, keepAlive: string) {
    this.response = response;
    this.result = result;
    this.#keepAlive = keepAlive;
  }

  /** Whole events only are ever written, so a keep-alive can never land inside one. */
  keepAlive(): void {
    this.response.write(this.#keepAlive);
  }

  write(text: string): void {
    if (text.length === 0) return;
    if (this.#source === undefined) this.#text += text;
    else this.#hold(Buffer.concat([this.#held(), Buffer.from(text)]));
  }

  /** Relays `source` from `from` to `to` as it came: events that follow each other in a read extend one stretch, no view made per event. */
  writeBytes(source: Buffer, from: number, to: number): void {
    if (this.#text.length > 0) {
      this.#hold(Buffer.concat([Buffer.from(this.#text), source.subarray(from, to)]));
      this.#text = '';
    } else if (this.#source === undefined) {
      this.#source = source;
      this.#from = from;
      this.#to = to;
    } else if (this.#source === source && this.#to === from) {
      this.#to = to;
    } else {
      this.#hold(Buffer.concat([this.#held(), source.subarray(from, to)]));
    }
  }

  /**
   * Copies what is held out of the upstream's read before a wait, so the wait keeps only what is
   * left to send (the `[DONE]` event, say) and not the whole read it is a view of.
   */
  detach(): void {
    if (this.#source !== undefined) this.#hold(Buffer.from(this.#held()));
  }

  flush(): void {
    const out = this.#source === undefined ? this.#text : this.#held();
    if (out.length === 0) return;
    if (this.result.firstByteAt === undefined) this.result.firstByteAt = performance.now();
    this.sent = true;
    this.response.write(out);
    this.#text = '';
    this.#source = undefined;
  }

  #held(): Buffer {
    return (this.#source as Buffer).subarray(this.#from, this.#to);
  }

  #hold(bytes: Buffer): void {
    this.#source = bytes;
    this.#from = 0;
    this.#to = bytes.length;
  }
}

/**
 * Relays an upstream SSE stream to the client. Translated streams go decoder → canonical parts
 * → encoder. Same-format streams keep their data text untouched (no JSON re-encoding): their
 * plainly framed events go out as the bytes that came (read-skipping.ts), the others are
 * re-framed event by event. Beside them runs the format's
 * relay monitor (or the decoder, when the answer itself is needed) to read usage and to notice a
 * truncated stream, which is then closed with the format's error event rather than left to look
 * like success (protocols.md §7.3).
 *
 * From the event that finishes the answer on, output is held back until `beforeEnd` has made
 * durable what must outlive this process (the usage event): a client that saw the end of its
 * answer is then always counted, even if the router dies right after (issue 7).
 */
export async function streamAnswer(
  exchange: Exchange,
  upstream: UpstreamResponse,
  response: AnswerWriter,
  headers: Record<string, string>,
  options: StreamOptions,
): Promise<StreamResult> {
  response.writeHead(200, { ...SSE_HEADERS, ...headers });
  const accumulator = new StreamAccumulator();
  const result: StreamResult = {
    answer: undefined,
    usage: undefined,
    // Bound, not a closure: a closure would keep the relay's whole scope alive with the result.
    generatedText: accumulator.generatedText.bind(accumulator),
    events: 0,
    error: undefined,
    upstreamBroke: false,
    firstByteAt: undefined,
  };
  const output = new StreamOutput(response, result, exchange.clientFormat.stream.keepAlive);
  const terminated = await relay(exchange, upstream, output, accumulator, options);
  // Only the output and the result are left: the relay's parser, decoder, encoder and closures
  // are garbage before the wait for beforeEnd (a Redis round trip), which would otherwise carry
  // them through a scavenge into the old generation (docs/performance.md).
  if (!terminated) {
    // A shutdown during the wait lets out what was held back (the answer's end, or the error
    // that ended it) rather than add an error of its own.
    const forget = options.activeStreams.add(() => output.flush());
    output.detach();
    await options.beforeEnd(result);
    forget();
  }
  output.flush();
  response.end();
  return result;
}

/** Relays the upstream's events into `output` until the stream ends; true when a shutdown ended it. */
async function relay(
  exchange: Exchange,
  upstream: UpstreamResponse,
  output: StreamOutput,
  accumulator: StreamAccumulator,
  options: StreamOptions,
): Promise<boolean> {
  const { clientFormat, upstreamFormat, sameFormat, request } = exchange;
  const { response, result } = output;
  const requestId = request.identity.requestId;
  const monitor = options.watchOnly && sameFormat ? upstreamFormat.stream.createRelayMonitor() : undefined;
  const decoder = monitor === undefined ? upstreamFormat.stream.createDecoder() : undefined;
  const encoder = sameFormat ? undefined : clientFormat.stream.createEncoder(clientResponseContext(exchange));
  // Same-format chat streams had include_usage forced on; the client gets the usage chunk only if it asked.
  const dropUsageChunk = sameFormat && clientFormat.id === 'chat-completions' && exchange.canonical.includeUsage !== true;
  /** The event that ends the client's stream with `error`, in its own format. */
  const errorEvent = (error: GatewayError): string =>
    encoder === undefined ? clientFormat.errors.renderStreamError(error, requestId) : encoder.push({ type: 'error', error });

  // The head leaves with the first events when they are already here (one socket write, not
  // two); an upstream still thinking gets its client the head a turn later all the same.
  const headFlush = setImmediate(() => {
    if (result.firstByteAt === undefined) response.flushHeaders();
  });
  let upstreamErrorRelayed = false;
  /** The answer's finish was seen: what follows waits for beforeEnd. */
  let finished = false;

  // Only while the upstream is being read: a dead upstream is not masked by pings.
  const forgetKeepAlive = options.keepAlives.add(output);

  // What came before the event that finishes the answer leaves now, not after beforeEnd: a
  // stream read whole in one turn would otherwise hold all of it, first byte included, for a
  // Redis round trip.
  const finishing = () => {
    if (finished) return;
    output.flush();
    finished = true;
  };

  const observe = (parts: StreamPart[]): string => {
    let out = '';
    for (const part of parts) {
      // The router names answers it keeps state for (stored Responses).
      if (part.type === 'start' && exchange.answerId !== undefined) part.id = exchange.answerId;
      else if (part.type === 'error') result.error = part.error;
      else if (part.type === 'finish') finishing();
      accumulator.push(part);
      if (encoder !== undefined) out += encoder.push(part);
    }
    return out;
  };

  /** An event relayed as it came: as its bytes where the reader found them (`source` from `from` to `to`), else re-framed with its data untouched. */
  const relayEvent = (event: SseEvent, source?: Buffer, from = 0, to = 0) => {
    if (dropUsageChunk && event.data.includes('"choices":[]')) return;
    if (source === undefined) output.write(formatSseEvent(event.data, event.event));
    else output.writeBytes(source, from, to);
  };

  const onEvent =
    monitor === undefined
      ? (event: SseEvent, source?: Buffer, from?: number, to?: number) => {
          const parts = (decoder as StreamDecoder).push(event);
          if (sameFormat) {
            if (parts.some((part) => part.type === 'error')) upstreamErrorRelayed = true;
            relayEvent(event, source, from, to);
          }
          output.write(observe(parts));
        }
      : (event: SseEvent, source?: Buffer, from?: number, to?: number) => {
          monitor.push(event);
          result.events++;
          if (monitor.finished) finishing();
          if (monitor.error !== undefined) {
            // Relayed as the upstream sent it.
            result.error = monitor.error;
            upstreamErrorRelayed = true;
          }
          relayEvent(event, source, from, to);
        };

  const parser = createSseParser(onEvent);
  // A same-format stream is relayed as the bytes that came wherever they are plainly framed, decoded or watched.
  const read = sameFormat
    ? createSkippingReader(parser, monitor, {
        run(source, from, to, events) {
          result.events += events;
          output.writeBytes(source, from, to);
        },
        event: onEvent,
      })
    : (chunk: Buffer) => parser.push(chunk);
  let terminated = false;
  const forget = options.activeStreams.add((error) => {
    terminated = true;
    if (finished) {
      // The answer is whole: let it out rather than end it with an error.
      output.flush();
      return;
    }
    result.error = error;
    output.write(errorEvent(error));
    output.flush();
    upstream.body.destroy();
  });
  try {
    // Chunks are handled in the socket read's turn: between two chunks of a slow stream
    // nothing is left alive (a pending promise per read lived that long and was pretenured).
    await upstream.body.forEach((chunk) => {
      read(chunk);
      if (!finished) output.flush();
    });
    parser.end();
    const text = decoder === undefined ? '' : observe(decoder.end());
    const truncated = monitor?.end();
    if (truncated !== undefined && result.error === undefined) result.error = truncated;
    if (sameFormat && result.error !== undefined && !upstreamErrorRelayed) {
      output.write(errorEvent(result.error));
    } else {
      output.write(text);
    }
  } catch (error) {
    const failure = transportError(error, request.signal);
    if (!terminated) result.error = failure;
    if (!terminated && failure.kind !== 'client_closed') {
      output.write(errorEvent(failure));
    }
  }
  forget();
  forgetKeepAlive();
  result.upstreamBroke = result.error !== undefined && !terminated && result.error.kind !== 'client_closed';
  // A stream read whole within one turn leaves, head and all, in one write after beforeEnd.
  clearImmediate(headFlush);
  result.answer = accumulator.response;
  result.usage = monitor === undefined ? result.answer?.usage : monitor.usage;
  return terminated;
}
