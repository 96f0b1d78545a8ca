import { write, writeSync } from 'node:fs';

/** Bytes a batch buffer holds (the largest useful minBytes); a longer line gets a buffer of its own. */
const CHUNK_BYTES = 64 * 1024;
/**
 * Past this much unwritten output (the reader of stdout has stopped reading) new lines are
 * dropped and counted, rather than growing the heap until the process dies.
 */
const MAX_PENDING_BYTES = 32 * 1024 * 1024;
/** How soon a write refused with EAGAIN (a full non-blocking pipe) is tried again. */
const RETRY_MS = 10;

export interface BatchedLineWriterOptions {
  /** A batch is written once this many bytes wait (or at the next periodic flush). */
  minBytes: number;
  /** Longest a line waits in a batch. */
  flushIntervalMs: number;
  /** Unwritten bytes past which lines are dropped (default 32 MiB); the count is written once output flows again. */
  maxPendingBytes?: number;
}

/**
 * A pino destination that encodes each line straight into a batch buffer and writes whole
 * batches, one asynchronous write at a time, in order.
 *
 * sonic-boom (pino's own destination) batches by appending strings and measuring the joined
 * string's byte length on every line, which flattens it each time: about 2.5 KB of garbage a
 * line at 4 KB batches. Here a line is encoded once into a reusable buffer.
 */
export class BatchedLineWriter {
  readonly #fd: number;
  readonly #minBytes: number;
  readonly #maxPendingBytes: number;
  /** Sealed batches, oldest first, waiting for the write in flight. */
  readonly #queue: Buffer[] = [];
  #queuedBytes = 0;
  #current: Buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  #used = 0;
  /** A written batch buffer, kept for the next seal instead of allocating one. */
  #spare: Buffer | undefined;
  /** A batch is being written, or waits to be tried again. */
  #writing = false;
  /** The first queued batch is in an asynchronous write right now. */
  #inFlight = false;
  #dropped = 0;
  readonly #timer: NodeJS.Timeout;

  constructor(fd: number, options: BatchedLineWriterOptions) {
    this.#fd = fd;
    this.#minBytes = Math.min(options.minBytes, CHUNK_BYTES);
    this.#maxPendingBytes = options.maxPendingBytes ?? MAX_PENDING_BYTES;
    this.#timer = setInterval(() => this.flush(), options.flushIntervalMs).unref();
    openWriters.add(this);
  }

  write(line: string): boolean {
    const pending = this.#queuedBytes + this.#used;
    if (this.#dropped > 0 && pending < this.#maxPendingBytes / 2) {
      const dropped = this.#dropped;
      this.#dropped = 0;
      this.#append(`{"level":40,"time":${Date.now()},"dropped":${dropped},"msg":"log lines dropped: stdout was not read fast enough"}\n`);
    }
    if (pending + line.length * 3 > this.#maxPendingBytes) {
      this.#dropped++;
      return false;
    }
    this.#append(line);
    if (!this.#writing && (this.#queue.length > 0 || this.#used >= this.#minBytes)) this.#writeNext();
    return true;
  }

  /** Starts writing whatever waits (the periodic flush). */
  flush(): void {
    if (this.#writing || this.#used === 0) return;
    this.#writeNext();
  }

  /**
   * Writes everything synchronously: at exit, when nothing asynchronous will run again. A batch
   * whose asynchronous write is in flight is left to it (writing it again could duplicate it).
   */
  flushSync(): void {
    if (this.#used > 0) this.#seal(0);
    if (this.#inFlight) this.#queue.shift();
    this.#writing = false;
    this.#inFlight = false;
    while (this.#queue.length > 0) {
      const batch = this.#queue[0] as Buffer;
      let written: number;
      try {
        written = writeSync(this.#fd, batch);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') continue;
        this.#queue.length = 0;
        return;
      }
      this.#queue[0] = batch.subarray(written);
      if (written === batch.length) this.#queue.shift();
    }
    this.#queuedBytes = 0;
  }

  end(): void {
    clearInterval(this.#timer);
    this.flushSync();
    openWriters.delete(this);
  }

  #append(line: string): void {
    const bytes = Buffer.byteLength(line);
    if (bytes > this.#current.length - this.#used) this.#seal(bytes);
    this.#used += this.#current.write(line, this.#used);
  }

  /** Moves the batch being filled to the queue and starts a new one of at least `atLeast` bytes. */
  #seal(atLeast: number): void {
    if (this.#used > 0) {
      this.#queue.push(this.#current.subarray(0, this.#used));
      this.#queuedBytes += this.#used;
    }
    const spare = this.#spare;
    this.#spare = undefined;
    this.#current = spare !== undefined && spare.length >= atLeast ? spare : Buffer.allocUnsafe(Math.max(CHUNK_BYTES, atLeast));
    this.#used = 0;
  }

  #writeNext(): void {
    if (this.#queue.length === 0) this.#seal(0);
    const batch = this.#queue[0] as Buffer;
    this.#writing = true;
    this.#inFlight = true;
    write(this.#fd, batch, 0, batch.length, null, (error, written) => {
      // flushSync at exit may have taken over (the callback then never runs; a test may still see it).
      if (!this.#inFlight) return;
      this.#inFlight = false;
      if (error !== null) {
        if (error.code === 'EAGAIN') {
          setTimeout(() => this.#writeNext(), RETRY_MS).unref();
          return;
        }
        // stdout is gone (EPIPE, EBADF): nothing more can be written; keep serving.
        this.#queue.length = 0;
        this.#queuedBytes = 0;
        this.#used = 0;
        this.#writing = false;
        return;
      }
      this.#queuedBytes -= written;
      if (written < batch.length) {
        this.#queue[0] = batch.subarray(written);
      } else {
        this.#queue.shift();
        // Only a whole batch buffer is worth keeping (not a line's own oversized one).
        if (batch.byteOffset === 0 && batch.buffer.byteLength === CHUNK_BYTES) this.#spare = Buffer.from(batch.buffer, 0, CHUNK_BYTES);
      }
      if (this.#queue.length > 0 || this.#used >= this.#minBytes) this.#writeNext();
      else this.#writing = false;
    });
  }
}

const openWriters = new Set<BatchedLineWriter>();
// Lines still in a batch when the process exits are written synchronously, as pino does for
// its own destinations; only a SIGKILL loses the last flush interval of lines.
process.once('exit', () => {
  for (const writer of openWriters) writer.flushSync();
});
