import { HeldItems } from '@switchyard/http-server';

/** A stream the ticker watches. */
export interface QuietStream {
  /** Set by the stream whenever it sends; cleared by the ticker when it looks. */
  sent: boolean;
  /** Writes the format's keep-alive. */
  keepAlive(): void;
}

/**
 * One timer for the keep-alives of every stream a router relays. A timer per stream was set and
 * cleared on every streamed request, about 1% of a stream's CPU (docs/performance.md). Each tick
 * a stream that sent nothing since the previous one gets a keep-alive. A stream added between two
 * ticks counts as having sent, so its first keep-alive, like every later one, comes after one to
 * two periods of quiet. The timer starts with the first stream, is unref'd and stops at close().
 */
export class KeepAlives {
  readonly #streams = new HeldItems<QuietStream>();
  readonly #periodMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(periodMs: number) {
    this.#periodMs = periodMs;
  }

  /** Watches `stream` until the returned function is called. */
  add(stream: QuietStream): () => void {
    stream.sent = true;
    const forget = this.#streams.add(stream);
    this.#timer ??= setInterval(() => {
      for (const watched of this.#streams.values()) {
        if (!watched.sent) watched.keepAlive();
        watched.sent = false;
      }
    }, this.#periodMs).unref();
    return forget;
  }

  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#streams.clear();
  }
}
