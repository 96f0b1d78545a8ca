import type * as NodeHttp from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { GatewayError } from '@switchyard/canonical';
import { INTERNAL_AUTH_REFUSED_HEADER } from '@switchyard/catalog-client';
import { markRelayed, relayHead } from '../relay-to-client.ts';
import type { RouteRequest } from '../route-request.ts';
import { FrameWriter } from './frame-writer.ts';
import { CANCEL, DATA, END, FrameReader, GOAWAY, HEAD, HOP_PATH, HOP_PROTOCOL, OPEN, openPayload, type HopRequestMeta } from './frames.ts';
import { StreamTable } from './stream-table.ts';

// Required, not imported: an ESM import of node:http reads every export of it, its lazy
// WebSocket ones too, and so loads Node's bundled undici, ~3 MB of heap that nothing here uses
// (docs/performance.md, "Memory at rest").
const { request: httpRequest } = createRequire(import.meta.url)('node:http') as typeof NodeHttp;

/** No router answer is near this; a frame announcing more is a broken peer. */
const MAX_ANSWER_FRAME_BYTES = 1 << 30;

/** Stream ids are u32; a connection this far along is retired long before they could run out (it is replaced after a minute anyway). */
const LAST_STREAM_ID = 2 ** 31;

export interface HopConnectionOptions {
  /** The router's base URL (SWITCHYARD_ROUTER_URL's item). */
  url: URL;
  /** A router that has not answered the upgrade by then is taken as down (as undici's connect timeout took it). */
  connectTimeoutMs: number;
  /** `Bearer <token>` when SWITCHYARD_INTERNAL_TOKEN is set. */
  authorization: string | undefined;
  /** The router refused the internal token (a misconfiguration, said once per connection). */
  onRefused: () => void;
  /** The upgrade was answered, but not taken (an older router, a proxy that refuses it); the streams sent here fail. */
  onUnsupported: () => void;
}

/**
 * The ingress's end of one hop connection to a router: requests go out as streams of frames
 * (frames.ts), answers come back as HEAD, DATA and END frames and are written to each client's
 * response as they come. Streams sent while the upgrade is still being answered wait here and
 * leave as soon as it is.
 */
export class HopConnection {
  readonly openedAt = Date.now();
  readonly #streams = new StreamTable<HopExchange>();
  #writer: FrameWriter | undefined;
  /** Frames given before the upgrade was answered. */
  #early: Array<[type: number, stream: number, payload: Buffer[] | undefined, length: number]> = [];
  #socket: Socket | undefined;
  #onClosed: (() => void) | undefined;
  /** Settles once the connection is gone (or never came). */
  readonly closed = new Promise<void>((resolve) => (this.#onClosed = resolve));
  #nextStream = 1;
  #closed = false;
  /** No new streams: the router said GOAWAY, or the forwarder retired this connection. */
  #retired = false;

  constructor(options: HopConnectionOptions) {
    const base = options.url;
    // A router behind TLS (an https:// URL) is reached as one, as undici's pool reached it.
    const upgrade = (base.protocol === 'https:' ? httpsRequest : httpRequest)({
      // URL keeps an IPv6 literal's brackets; a socket's host has none.
      host: base.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: base.port,
      path: base.pathname.replace(/\/$/, '') + HOP_PATH,
      method: 'GET',
      agent: false,
      headers: {
        connection: 'upgrade',
        upgrade: HOP_PROTOCOL,
        ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
      },
    });
    const timeout = setTimeout(() => {
      upgrade.destroy(Object.assign(new Error(`The router at ${base.origin} did not answer the hop upgrade within ${options.connectTimeoutMs} ms.`), { code: 'ETIMEDOUT' }));
    }, options.connectTimeoutMs);
    upgrade.once('close', () => clearTimeout(timeout));
    upgrade.on('upgrade', (response: IncomingMessage, socket: Socket, head: Buffer) => {
      clearTimeout(timeout);
      this.#opened(response, socket, head);
    });
    upgrade.on('response', (response: IncomingMessage) => {
      response.resume();
      if (response.statusCode === 401 && response.headers[INTERNAL_AUTH_REFUSED_HEADER] !== undefined) {
        options.onRefused();
        this.#fail(new GatewayError('internal', 'Internal error: the gateway is misconfigured.', { code: 'internal_token_refused' }));
      } else {
        // No hop to be had here, though something answered: a router of the release before the
        // hop (404), or a proxy between that passes only upgrades it knows (a mesh sidecar's 403).
        options.onUnsupported();
        this.#fail(Object.assign(new Error(`The router at ${base.origin} answered the hop upgrade with ${response.statusCode}.`), { code: 'ECONNREFUSED' }));
      }
    });
    upgrade.on('error', (error: Error) => this.#fail(error));
    upgrade.end();
  }

  /** Whether new requests may go here. */
  get accepting(): boolean {
    return !this.#closed && !this.#retired && this.#nextStream < LAST_STREAM_ID;
  }

  /** No new streams; the connection closes once those it carries have ended. */
  retire(): void {
    this.#retired = true;
    this.#closeIfIdleAndRetired();
  }

  /**
   * Sends one request and relays its answer to `response`. Settles when the answer has ended
   * (or failed); if the connection is lost mid-answer the client response is left open, for
   * ingress to end it with the format's error event.
   */
  exchange(request: RouteRequest, response: ServerResponse): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.#closed) {
        reject(lostConnection());
        return;
      }
      const stream = this.#nextStream++;
      const exchange = new HopExchange(this, stream, response, request.signal, resolve, reject);
      if (exchange.done) return;
      this.#streams.set(stream, exchange);
      const { chunks, length } = openPayload(requestMeta(request), request.body);
      this.#send(OPEN, stream, chunks, length);
    });
  }

  cancel(stream: number): void {
    if (this.#streams.delete(stream)) this.#send(CANCEL, stream, undefined, 0);
    this.#closeIfIdleAndRetired();
  }

  ended(stream: number): void {
    this.#streams.delete(stream);
    this.#closeIfIdleAndRetired();
  }

  #send(type: number, stream: number, payload: Buffer[] | undefined, length: number): void {
    const writer = this.#writer;
    if (writer === undefined) this.#early.push([type, stream, payload, length]);
    else writer.send(type, stream, payload, length);
  }

  #opened(response: IncomingMessage, socket: Socket, head: Buffer): void {
    response.resume();
    this.#socket = socket;
    socket.setNoDelay(true);
    const writer = new FrameWriter(socket);
    this.#writer = writer;
    for (const [type, stream, payload, length] of this.#early) writer.send(type, stream, payload, length);
    this.#early = [];
    const reader = new FrameReader(this.#onFrame, MAX_ANSWER_FRAME_BYTES);
    const read = (bytes: Buffer) => {
      try {
        reader.push(bytes);
      } catch (error) {
        socket.destroy(error as Error);
      }
    };
    socket.on('data', read);
    socket.on('error', (error: Error) => this.#fail(error));
    socket.once('close', () => this.#fail(lostConnection()));
    if (head.length > 0) read(head);
    this.#closeIfIdleAndRetired();
  }

  #onFrame = (type: number, stream: number, payload: Buffer): void => {
    if (type === GOAWAY) {
      this.retire();
      return;
    }
    // A stream this end cancelled may still have frames on their way: they are dropped.
    const exchange = this.#streams.get(stream);
    if (exchange === undefined) return;
    if (type === HEAD) exchange.head(payload);
    else if (type === DATA) exchange.data(payload);
    else if (type === END) exchange.end(payload);
    else throw new GatewayError('internal', `Hop frame of unknown type ${type} from a router.`);
  };

  #closeIfIdleAndRetired(): void {
    if (!this.#retired || this.#streams.size > 0 || this.#socket === undefined) return;
    // What is still queued (the CANCEL of the stream that just ended, say) leaves before the end.
    this.#writer?.flush();
    this.#socket.end();
  }

  /** The connection is gone (or never came): every stream on it fails with `error`. */
  #fail(error: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClosed?.();
    this.#early = [];
    this.#socket?.destroy();
    const streams = this.#streams.values();
    this.#streams.clear();
    for (const exchange of streams) exchange.fail(error);
  }
}

/** A connection lost with streams on it; before a stream's answer began, another router may take it (the forwarder retries these). */
function lostConnection(): Error {
  return Object.assign(new Error('The hop connection to the router was lost.'), { code: 'ECONNRESET' });
}

function requestMeta(request: RouteRequest): HopRequestMeta {
  return {
    route: request.route,
    tenantId: request.identity.tenantId,
    keyId: request.identity.keyId,
    requestId: request.identity.requestId,
    headers: request.headers,
    query: stringValues(request.query),
    estimatedTokens: request.estimatedTokens,
    ...(request.admittedAt === undefined ? {} : { admittedAt: request.admittedAt }),
  };
}

/** A query parameter given twice reaches ingress as an array: it travels joined by commas, as URLSearchParams would write it. */
function stringValues(query: Record<string, unknown>): Record<string, string> {
  for (const name in query) {
    if (typeof query[name] !== 'string') return Object.fromEntries(Object.entries(query).map(([key, value]) => [key, String(value)]));
  }
  return query as Record<string, string>;
}

/** One request's stream on a hop connection, relaying its answer to the client's response. */
class HopExchange {
  readonly #connection: HopConnection;
  readonly #stream: number;
  #response: ServerResponse | null;
  #signal: AbortSignal | null;
  #resolve: (() => void) | null;
  #reject: ((error: Error) => void) | null;

  constructor(connection: HopConnection, stream: number, response: ServerResponse, signal: AbortSignal, resolve: () => void, reject: (error: Error) => void) {
    this.#connection = connection;
    this.#stream = stream;
    this.#response = response;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = null;
    if (signal.aborted) {
      this.fail(abortReason(signal));
    } else {
      this.#signal = signal;
      signal.addEventListener('abort', this.#onAbort);
    }
  }

  get done(): boolean {
    return this.#response === null;
  }

  head(payload: Buffer): void {
    const response = this.#response as ServerResponse;
    const [status, headers] = JSON.parse(payload.toString()) as [number, Record<string, string | number | string[]>];
    relayHead(response, status, headers);
  }

  data(payload: Buffer): void {
    const response = this.#response as ServerResponse;
    markRelayed(response, payload);
    // A client already behind keeps what it is sent queued: a copy, so the queue holds these
    // bytes and not the whole connection read they are a view of. The hop is shared, so one
    // slow client is not allowed to hold it back; its bytes wait in its own response instead
    // (the router queued them for it in the same way before the hop was shared).
    response.write(response.writableNeedDrain ? Buffer.from(payload) : payload);
  }

  end(payload: Buffer): void {
    const response = this.#response as ServerResponse;
    if (payload.length > 0) this.data(payload);
    response.end();
    const resolve = this.#resolve;
    this.#release();
    this.#connection.ended(this.#stream);
    resolve?.();
  }

  fail(error: Error): void {
    const reject = this.#reject;
    this.#release();
    reject?.(error);
  }

  #onAbort = (): void => {
    const reason = abortReason(this.#signal as AbortSignal);
    this.#connection.cancel(this.#stream);
    this.fail(reason);
  };

  #release(): void {
    this.#signal?.removeEventListener('abort', this.#onAbort);
    this.#signal = null;
    this.#response = null;
    this.#resolve = null;
    this.#reject = null;
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('The request was aborted.');
}
