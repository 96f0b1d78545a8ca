import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

/**
 * A raw HTTP/1.1 connection, so that a test decides when each byte of an upload is written:
 * what an answer sent before the body was read (drain-unread-body.ts) is tested with.
 */
export class RawHttpConnection {
  private readonly socket: Socket;
  private received = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  readonly closed: Promise<void>;

  static async open(port: number, host = '127.0.0.1'): Promise<RawHttpConnection> {
    const socket = connect(port, host);
    await once(socket, 'connect');
    return new RawHttpConnection(socket);
  }

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.waiting?.();
    });
    // A reset while the test writes is a closed connection too, not an unhandled error.
    socket.on('error', () => undefined);
    this.closed = once(socket, 'close').then(() => undefined);
  }

  destroy(): void {
    this.socket.destroy();
  }

  write(text: string): void {
    this.socket.write(text);
  }

  /** The head of a JSON upload of `length` bytes and its first `sent`: an answer may come before the rest. */
  startUpload(path: string, length: number, sent: number, headers = ''): void {
    this.write(`POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n${headers}\r\n`);
    this.write('x'.repeat(sent));
  }

  /** The next whole answer (its body framed by content-length), or a throw if the connection closes first. */
  async answer(): Promise<RawAnswer> {
    for (;;) {
      const end = this.received.indexOf('\r\n\r\n');
      if (end >= 0) {
        const head = this.received.subarray(0, end).toString('latin1');
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (this.received.length >= end + 4 + length) {
          const body = this.received.subarray(end + 4, end + 4 + length).toString();
          this.received = this.received.subarray(end + 4 + length);
          return { status: Number(head.split(' ')[1]), head, body };
        }
      }
      const arrived = new Promise<void>((resolve) => (this.waiting = resolve));
      const closed = this.closed.then(() => 'closed' as const);
      if ((await Promise.race([arrived, closed])) === 'closed') throw new Error('connection closed before a whole answer');
    }
  }
}
