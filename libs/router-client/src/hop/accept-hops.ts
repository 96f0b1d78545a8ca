import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { GatewayError } from '@switchyard/canonical';
import { createInternalTokenCheck, INTERNAL_AUTH_REFUSED_HEADER, type InternalRefusal, type InternalTokens } from '@switchyard/catalog-client';
import { wireFormats, writeError } from '@switchyard/formats';
import type { RouteHandler } from '../route-request.ts';
import { FrameWriter } from './frame-writer.ts';
import { CANCEL, FrameReader, GOAWAY, HOP_PATH, HOP_PROTOCOL, OPEN, readOpenPayload } from './frames.ts';
import { HopAnswer, type AnswerStream } from './hop-answer.ts';
import { StreamTable } from './stream-table.ts';

export interface AcceptHopsOptions {
  /** Serves each request that arrives on a hop. */
  handler: RouteHandler;
  /** The largest request a hop may carry: the body limit, with room for what travels beside the body. */
  maxRequestBytes: number;
  /** SWITCHYARD_INTERNAL_TOKEN: when set, an upgrade without one of these is refused with 401. */
  tokens?: InternalTokens;
  onRefused?: (refusal: InternalRefusal) => void;
}

export interface HopListener {
  /** Sends GOAWAY on every hop: ingresses open no new streams here, and each hop closes once its streams have ended. */
  drain(): void;
  /** Hop connections open now. */
  readonly connections: number;
}

const UPGRADED = `HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: ${HOP_PROTOCOL}\r\n\r\n`;
const REFUSED = `HTTP/1.1 401 Unauthorized\r\n${INTERNAL_AUTH_REFUSED_HEADER}: refused\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`;
const NOT_A_HOP = 'HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n';

/**
 * The router's end of the ingress → router hop: an HTTP upgrade on the router's own port (so
 * SWITCHYARD_ROUTER_URL, Services and NetworkPolicies stay as they are), after which the
 * connection carries many requests at once as frames (frames.ts).
 */
export function acceptHops(server: Server, options: AcceptHopsOptions): HopListener {
  const open = new Set<ServedHop>();
  const check = options.tokens === undefined ? undefined : createInternalTokenCheck(options.tokens, options.onRefused);
  let draining = false;
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (request.url !== HOP_PATH || request.headers.upgrade?.toLowerCase() !== HOP_PROTOCOL) {
      socket.end(NOT_A_HOP);
      return;
    }
    if (check !== undefined && !check(request.headers.authorization, HOP_PATH, request.socket.remoteAddress)) {
      socket.end(REFUSED);
      return;
    }
    socket.write(UPGRADED);
    const hop = new ServedHop(socket as Socket, options, () => open.delete(hop));
    open.add(hop);
    hop.read(head);
    if (draining) hop.drain();
  });
  return {
    drain() {
      draining = true;
      for (const hop of open) hop.drain();
    },
    get connections() {
      return open.size;
    },
  };
}

class ServedHop implements AnswerStream {
  readonly #socket: Socket;
  readonly #writer: FrameWriter;
  readonly #reader: FrameReader;
  readonly #answers = new StreamTable<HopAnswer>();
  readonly #handler: RouteHandler;
  #waitingForDrain: Set<HopAnswer> | undefined;
  #draining = false;

  constructor(socket: Socket, options: AcceptHopsOptions, onClose: () => void) {
    this.#socket = socket;
    this.#handler = options.handler;
    this.#writer = new FrameWriter(socket);
    this.#reader = new FrameReader(this.#onFrame, options.maxRequestBytes);
    // Frames are gathered into one write per turn already: Nagle would only delay them.
    socket.setNoDelay(true);
    socket.on('data', (read: Buffer) => this.read(read));
    socket.on('drain', () => {
      const waiting = this.#waitingForDrain;
      this.#waitingForDrain = undefined;
      if (waiting !== undefined) for (const answer of waiting) answer.emit('drain');
    });
    // An ingress ends its side only with no stream open on it (it retired the connection, or
    // read our GOAWAY). The HTTP server's sockets stay half-open after the peer's end: ours is
    // ended here, or the ingress would wait for a close that never comes.
    socket.once('end', () => this.#close());
    // 'close' follows an error; what was being served is cut off there.
    socket.on('error', () => {});
    socket.once('close', () => {
      for (const answer of this.#answers.values()) answer.abandon();
      this.#answers.clear();
      onClose();
    });
  }

  get flowing(): boolean {
    return this.#writer.flowing;
  }

  read(bytes: Buffer): void {
    if (bytes.length === 0) return;
    try {
      this.#reader.push(bytes);
    } catch (error) {
      // A peer that breaks the framing cannot be read further: every stream on it is lost.
      this.#socket.destroy(error as Error);
    }
  }

  send(type: number, stream: number, payload?: Buffer): void {
    this.#writer.send(type, stream, payload);
  }

  waitForDrain(answer: HopAnswer): void {
    (this.#waitingForDrain ??= new Set()).add(answer);
  }

  finished(stream: number): void {
    const answer = this.#answers.get(stream);
    this.#answers.delete(stream);
    if (answer !== undefined) this.#waitingForDrain?.delete(answer);
  }

  /**
   * The ingress ends the connection once it has read this and has no stream left on it; until
   * then requests it sent before it read this are still served. Closing from this end instead
   * would race them: one already on its way would find the connection gone.
   */
  drain(): void {
    if (this.#draining) return;
    this.#draining = true;
    this.#writer.send(GOAWAY, 0);
  }

  #close(): void {
    this.#writer.flush();
    this.#socket.end();
  }

  #onFrame = (type: number, stream: number, payload: Buffer): void => {
    if (type === OPEN) this.#open(stream, payload);
    else if (type === CANCEL) this.#answers.get(stream)?.abandon();
    else throw new GatewayError('internal', `Hop frame of unknown type ${type} from an ingress.`);
  };

  #open(stream: number, payload: Buffer): void {
    if (this.#answers.has(stream)) throw new GatewayError('internal', `Hop stream ${stream} opened twice.`);
    const answer = new HopAnswer(this, stream);
    this.#answers.set(stream, answer);
    // Served during a drain too, as an HTTP request already sent is: the ingress sent it before our GOAWAY reached it.
    const opened = readOpenPayload(payload);
    if (opened === undefined) {
      writeError(answer, wireFormats['chat-completions'], new GatewayError('invalid_request', 'Malformed hop request.'), 'unknown');
      return;
    }
    const { meta, body } = opened;
    void this.#handler(
      {
        route: meta.route,
        identity: { tenantId: meta.tenantId, keyId: meta.keyId, requestId: meta.requestId },
        body,
        headers: meta.headers,
        query: meta.query,
        signal: answer.signal,
        receivedAt: performance.now(),
        estimatedTokens: meta.estimatedTokens,
        admittedAt: meta.admittedAt,
      },
      answer,
    );
  }
}
