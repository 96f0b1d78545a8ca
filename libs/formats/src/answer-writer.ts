import type { OutgoingHttpHeaders } from 'node:http';

/**
 * Where a router writes one answer: the client's own HTTP response in `all`, or one stream of the
 * multiplexed ingress → router hop in split mode (router-client's `hop/`). It is the part of
 * node:http's ServerResponse that answers are written through, so a ServerResponse is one.
 */
export interface AnswerWriter {
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  readonly writableFinished: boolean;
  readonly destroyed: boolean;
  writeHead(statusCode: number, headers?: OutgoingHttpHeaders): this;
  /** False when the bytes were queued behind others ('drain' follows). */
  write(chunk: string | Uint8Array): boolean;
  end(chunk?: string | Uint8Array): this;
  flushHeaders(): void;
  on(event: 'close' | 'drain', listener: () => void): this;
  once(event: 'close' | 'drain', listener: () => void): this;
  off(event: 'close' | 'drain', listener: () => void): this;
}
