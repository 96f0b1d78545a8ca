import { errors } from '@switchyard/http-client';
import type { Dispatcher } from 'undici';
import { AbortableDispatch } from './abortable-dispatch.ts';

/** What the router reads of an upstream answer's body: whole, or chunk by chunk. */
export interface UpstreamBody {
  text(): Promise<string>;
  /**
   * Hands each chunk to `onChunk` as it arrives, in the socket read's own turn: no promise or
   * iterator result per chunk, so a slow stream leaves nothing alive between its chunks. Settles
   * when the body ends; rejects as `text()` would. A throwing `onChunk` aborts the upstream
   * request and rejects with what it threw.
   */
  forEach(onChunk: (chunk: Buffer) => void): Promise<void>;
  /** Aborts the upstream request; a pending read rejects with `error` (undici's RequestAbortedError without one). */
  destroy(error?: Error): void;
}

export interface UpstreamResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: UpstreamBody;
}

/** Bytes not yet read (no reader yet) at which the socket stops being read: the highWaterMark undici's BodyReadable had. */
const HIGH_WATER_MARK = 64 * 1024;

interface Waiter<T> {
  resolve: (value: T) => void;
  reject: (error: Error) => void;
}

/**
 * Dispatches one request and answers once its headers arrive. It stands in for undici's
 * `request()`, whose AsyncResource, callback-to-promise wrapper and Readable body showed in
 * profiles of every upstream call: here one object is both the dispatch handler and the body,
 * handing chunks to a `forEach` reader as they arrive or collecting them for `text()` (until a
 * reader comes, chunks queue, and the socket pauses past the high-water mark). Errors and aborts
 * surface as they did through `request()` and BodyReadable (the same error objects), so callers
 * map them unchanged.
 */
export function dispatchUpstream(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, signal: AbortSignal): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    dispatcher.dispatch(options, new UpstreamAnswer(signal, resolve, reject));
  });
}

class UpstreamAnswer extends AbortableDispatch implements UpstreamBody {
  #resolve: ((response: UpstreamResponse) => void) | null;
  #reject: ((error: Error) => void) | null;

  #chunks: Buffer[] = [];
  #bytes = 0;
  /** The upstream sent the whole body. */
  #ended = false;
  /** The reader has seen the end: nothing more can happen to this body. */
  #done = false;
  #error: Error | null = null;
  #reading: 'no' | 'text' | 'chunks' = 'no';
  /** The `forEach` reader. */
  #onChunk: ((chunk: Buffer) => void) | null = null;
  /** A `text()` or a `forEach()` waiting for the end. */
  #waiter: Waiter<string> | Waiter<void> | null = null;

  /** The signal is listened to until the reader is done or the body failed: as with BodyReadable, an abort fails even a body already received but not yet read. */
  constructor(signal: AbortSignal, resolve: (response: UpstreamResponse) => void, reject: (error: Error) => void) {
    super(signal);
    this.#resolve = resolve;
    this.#reject = reject;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    // 1xx (100-continue, early hints) only precede the answer.
    if (statusCode < 200) return;
    const resolve = this.#resolve;
    this.#resolve = null;
    this.#reject = null;
    resolve?.({ statusCode, headers, body: this });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    // Aborted or destroyed: what was already in flight has no reader.
    if (this.#error !== null) return;
    if (this.#onChunk !== null) {
      this.#hand(chunk);
      return;
    }
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    // text() wants it all anyway; a body not read yet, or read slowly, must not take in all the upstream sends.
    if (this.#reading !== 'text' && this.#bytes >= HIGH_WATER_MARK) controller.pause();
  }

  onResponseEnd(): void {
    this.#ended = true;
    const waiter = this.#waiter;
    if (waiter === null) return;
    this.#waiter = null;
    this.#finish();
    if (this.#reading === 'text') (waiter as Waiter<string>).resolve(this.#decode());
    else (waiter as Waiter<void>).resolve();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    const reject = this.#reject;
    if (reject === null) {
      this.#fail(error);
      return;
    }
    this.#resolve = null;
    this.#reject = null;
    this.unlisten();
    reject(error);
  }

  text(): Promise<string> {
    const refused = this.#use('text');
    if (refused !== undefined) return refused;
    if (this.#ended) {
      this.#finish();
      return Promise.resolve(this.#decode());
    }
    if (this.controller?.paused === true) this.controller.resume();
    return new Promise<string>((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  forEach(onChunk: (chunk: Buffer) => void): Promise<void> {
    const refused = this.#use('chunks');
    if (refused !== undefined) return refused;
    const queued = this.#chunks;
    this.#chunks = [];
    this.#bytes = 0;
    this.#onChunk = onChunk;
    for (const chunk of queued) {
      this.#hand(chunk);
      if (this.#error !== null) return Promise.reject(this.#error);
    }
    if (this.#ended) {
      this.#finish();
      return Promise.resolve();
    }
    if (this.controller?.paused === true) this.controller.resume();
    return new Promise<void>((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  destroy(error?: Error): void {
    if (this.#done || this.#error !== null) return;
    const reason = error ?? new errors.RequestAbortedError();
    const controller = this.controller;
    this.#fail(reason);
    controller?.abort(reason);
  }

  /** A body is read one way, once; like BodyReadable's, a second read, or a read after a failure, is refused. */
  #use(reading: 'text' | 'chunks'): Promise<never> | undefined {
    if (this.#error !== null) {
      this.#reading = reading;
      return Promise.reject(this.#error);
    }
    if (this.#reading !== 'no' || this.#done) return Promise.reject(new TypeError('unusable'));
    this.#reading = reading;
    return undefined;
  }

  protected override abort(controller: Dispatcher.DispatchController, reason: Error): void {
    // Before headers this rejects the send (through onResponseError); after them it fails the body.
    if (this.#reject === null) this.#fail(reason);
    controller.abort(reason);
  }

  /** A reader that throws wants no more: the upstream request is aborted with what it threw. */
  #hand(chunk: Buffer): void {
    try {
      (this.#onChunk as (chunk: Buffer) => void)(chunk);
    } catch (error) {
      this.destroy(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #fail(error: Error): void {
    if (this.#done || this.#error !== null) return;
    this.#error = error;
    this.#onChunk = null;
    this.#chunks = [];
    this.#bytes = 0;
    this.unlisten();
    const waiter = this.#waiter;
    this.#waiter = null;
    waiter?.reject(error);
  }

  #finish(): void {
    this.#done = true;
    this.#onChunk = null;
    this.unlisten();
  }

  /** Decoded once from all chunks, so a character split across two of them stays whole; a BOM is dropped as BodyReadable did. */
  #decode(): string {
    const chunks = this.#chunks;
    this.#chunks = [];
    const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, this.#bytes);
    this.#bytes = 0;
    const bom = bytes.length > 2 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
    return bytes.toString('utf8', bom ? 3 : 0);
  }
}

