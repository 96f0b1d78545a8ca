import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { createLogger } from '@switchyard/telemetry';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { DrainBounds } from './drain-unread-body.ts';
import { registerErrorHandler } from './error-handler.ts';
import { registerRawBody } from './raw-body.ts';

const LIMIT = 1024;

/** A raw HTTP/1.1 connection, so the test decides when each byte of an upload is written. */
class Connection {
  private readonly socket: Socket;
  private received = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  readonly closed: Promise<void>;

  constructor(socket: Socket) {
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

  /** The next whole answer (its body framed by content-length), or a throw if the connection closes first. */
  async answer(): Promise<{ status: number; head: string; body: string }> {
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

describe('an upload answered before it was read', () => {
  let app: FastifyInstance | undefined;
  let opened: Connection | undefined;

  afterEach(async () => {
    opened?.destroy();
    await app?.close();
  });

  async function open(bounds: DrainBounds): Promise<Connection> {
    app = Fastify({ bodyLimit: LIMIT, keepAliveTimeout: 60_000 });
    app.decorateRequest('clientFormat', 'messages');
    registerRawBody(app);
    registerErrorHandler(app, createLogger({ level: 'silent' }), bounds);
    app.post('/v1/messages', async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    opened = new Connection(socket);
    return opened;
  }

  /** Headers for a body of `length` bytes, and its first 512: the answer goes out before the rest. */
  function startUpload(connection: Connection, length: number): void {
    connection.write(`POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n`);
    connection.write('x'.repeat(512));
  }

  const small = 'POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';

  it('should answer 413 in the client format, read the rest of the body and serve the next requests on the connection', async () => {
    const connection = await open({ maxBytes: 1024 * 1024, maxMs: 300 });
    startUpload(connection, 64 * 1024);
    const tooLarge = await connection.answer();
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.body)).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
    expect(tooLarge.head).not.toMatch(/connection: close/i);
    // The rest of the upload arrives after the answer, as it does from a client that writes and reads at once.
    connection.write('x'.repeat(64 * 1024 - 512));
    connection.write(small);
    const next = await connection.answer();
    expect(next.status).toBe(200);
    expect(JSON.parse(next.body)).toEqual({ ok: true });
    // The bounds were for the answered upload only: past them, the connection still serves.
    await new Promise((resolve) => setTimeout(resolve, 600));
    connection.write(small);
    expect((await connection.answer()).status).toBe(200);
  });

  it('should close the connection once the unread rest is over the byte bound', async () => {
    const connection = await open({ maxBytes: 16 * 1024, maxMs: 60_000 });
    startUpload(connection, 1024 * 1024);
    expect((await connection.answer()).status).toBe(413);
    connection.write('x'.repeat(64 * 1024));
    await connection.closed;
  });

  it('should close the connection when the rest does not arrive within the time bound', async () => {
    const connection = await open({ maxBytes: 1024 * 1024, maxMs: 100 });
    startUpload(connection, 64 * 1024);
    expect((await connection.answer()).status).toBe(413);
    await connection.closed;
  });
});
