import type { DrainBounds } from '@switchyard/http-server';
import { createLogger } from '@switchyard/telemetry';
import { RawHttpConnection } from '@switchyard/testkit';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { registerErrorHandler } from './error-handler.ts';
import { registerRawBody } from './raw-body.ts';

const LIMIT = 1024;

describe('an upload answered before it was read', () => {
  let app: FastifyInstance | undefined;
  let opened: RawHttpConnection | undefined;

  afterEach(async () => {
    opened?.destroy();
    await app?.close();
  });

  async function open(bounds: DrainBounds): Promise<RawHttpConnection> {
    app = Fastify({ bodyLimit: LIMIT, keepAliveTimeout: 60_000 });
    app.decorateRequest('clientFormat', 'messages');
    registerRawBody(app);
    registerErrorHandler(app, createLogger({ level: 'silent' }), bounds);
    app.post('/v1/messages', async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    opened = await RawHttpConnection.open(port);
    return opened;
  }

  /** A body of `length` bytes, and its first 512 sent: the answer goes out before the rest. */
  const startUpload = (connection: RawHttpConnection, length: number) => connection.startUpload('/v1/messages', length, 512);

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
