import { EventEmitter } from 'node:events';
import type { OutgoingHttpHeaders } from 'node:http';
import type { AnswerWriter } from '@switchyard/formats';
import { DATA, END, HEAD } from './frames.ts';

/** The router's end of one hop stream, as HopAnswer needs it. */
export interface AnswerStream {
  send(type: number, stream: number, payload?: Buffer): void;
  /** Whether the connection takes more without queueing (see AnswerWriter.write). */
  readonly flowing: boolean;
  /** Tell this answer when the connection has room again. */
  waitForDrain(answer: HopAnswer): void;
  /** The answer ended: the stream id is free. */
  finished(stream: number): void;
}

const EMPTY = Buffer.alloc(0);

/**
 * One answer written into a hop stream: what the router writes to a client's ServerResponse in
 * `all`, sent as HEAD, DATA and END frames for the ingress to write to that client. The head
 * waits for the first body bytes (or flushHeaders), so an answer of known length leaves as one
 * HEAD and one END, in one write with the other streams' frames.
 */
export class HopAnswer extends EventEmitter implements AnswerWriter {
  headersSent = false;
  writableEnded = false;
  writableFinished = false;
  destroyed = false;
  /** Aborts when the ingress cancels the stream or the connection is lost. */
  readonly signal: AbortSignal;
  readonly #controller: AbortController;
  readonly #stream: number;
  #connection: AnswerStream | null;
  #head: Buffer | undefined;

  constructor(connection: AnswerStream, stream: number) {
    super();
    this.#connection = connection;
    this.#stream = stream;
    this.#controller = new AbortController();
    this.signal = this.#controller.signal;
  }

  writeHead(statusCode: number, headers: OutgoingHttpHeaders = {}): this {
    // As ServerResponse does: a second head is a bug of the writer, not something to send.
    if (this.headersSent) throw new Error('The answer\'s head was already written.');
    this.headersSent = true;
    this.#head = Buffer.from(JSON.stringify([statusCode, headers]));
    return this;
  }

  flushHeaders(): void {
    this.#sendHead();
  }

  write(chunk: string | Uint8Array): boolean {
    const connection = this.#connection;
    if (connection === null || this.writableEnded) return false;
    this.#sendHead();
    const bytes = toBuffer(chunk);
    if (bytes.length > 0) connection.send(DATA, this.#stream, bytes);
    if (connection.flowing) return true;
    connection.waitForDrain(this);
    return false;
  }

  end(chunk?: string | Uint8Array): this {
    const connection = this.#connection;
    if (connection === null || this.writableEnded) return this;
    if (!this.headersSent) this.writeHead(200);
    this.#sendHead();
    connection.send(END, this.#stream, chunk === undefined ? EMPTY : toBuffer(chunk));
    this.writableEnded = true;
    this.writableFinished = true;
    this.#connection = null;
    connection.finished(this.#stream);
    this.emit('finish');
    this.emit('close');
    return this;
  }

  /** The ingress cancelled the stream, or the connection is gone: the answer is cut off, as a closed client socket cuts one. */
  abandon(): void {
    if (this.#connection === null) return;
    this.#connection = null;
    this.destroyed = true;
    this.#controller.abort();
    this.emit('close');
  }

  #sendHead(): void {
    const head = this.#head;
    if (head === undefined || this.#connection === null) return;
    this.#head = undefined;
    this.#connection.send(HEAD, this.#stream, head);
  }
}

function toBuffer(chunk: string | Uint8Array): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk);
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
