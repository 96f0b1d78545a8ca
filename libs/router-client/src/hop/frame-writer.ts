import type { Socket } from 'node:net';
import { FRAME_HEAD_BYTES, frameHead } from './frames.ts';

/**
 * A hop connection's outgoing frames. What every stream sends while the event loop serves one
 * round of reads leaves in one socket write at the end of it (setImmediate): with many requests
 * on one connection, a write and the peer's read are shared by all of them instead of being paid
 * per request, as an HTTP keep-alive connection per request pays them.
 */
export class FrameWriter {
  readonly #socket: Socket;
  #queued: Buffer[] = [];
  #queuedBytes = 0;
  #scheduled = false;

  constructor(socket: Socket) {
    this.#socket = socket;
  }

  /** Whether the socket has taken all it was given (false: what is written now waits behind it). */
  get flowing(): boolean {
    return !this.#socket.writableNeedDrain;
  }

  send(type: number, stream: number, payload?: Buffer | readonly Buffer[], payloadLength?: number): void {
    let length = 0;
    if (payload === undefined) {
      this.#queued.push(frameHead(type, stream, 0));
    } else if (Buffer.isBuffer(payload)) {
      length = payload.length;
      this.#queued.push(frameHead(type, stream, length), payload);
    } else {
      length = payloadLength ?? 0;
      this.#queued.push(frameHead(type, stream, length), ...payload);
    }
    this.#queuedBytes += FRAME_HEAD_BYTES + length;
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(flushWriter, this);
    }
  }

  flush(): void {
    this.#scheduled = false;
    if (this.#queuedBytes === 0 || this.#socket.destroyed || this.#socket.writableEnded) return;
    const queued = this.#queued;
    this.#socket.write(queued.length === 1 ? (queued[0] as Buffer) : Buffer.concat(queued, this.#queuedBytes));
    this.#queued = [];
    this.#queuedBytes = 0;
  }
}

function flushWriter(writer: FrameWriter): void {
  writer.flush();
}
