import type { IncomingMessage } from 'node:http';
import type { FastifyReply } from 'fastify';

/** How much of an upload a server still reads, and for how long, after it has answered it. */
export interface DrainBounds {
  maxBytes: number;
  maxMs: number;
}

/**
 * nginx's lingering_time is 30 s; 64 MiB is twice the default body limit, a few tens of
 * milliseconds of CPU to discard.
 */
export const DEFAULT_DRAIN_BOUNDS: DrainBounds = { maxBytes: 64 * 1024 * 1024, maxMs: 30_000 };

const CHECK_EVERY_MS = 250;

/**
 * An answer sent before the client finished its upload (a body over the limit, a bad key)
 * must still reach the client. fastify closes such a connection, but closing a socket with
 * upload bytes unread makes the kernel reset it, and a client still writing its body gets
 * EPIPE or ECONNRESET instead of the 413. So the connection is kept: once the answer is out,
 * Node reads and discards the rest of the body (its keep-alive dump) and the connection
 * serves the next request. Only a rest longer than `maxBytes`, or slower than `maxMs`, gets
 * the connection closed; a client that reads answers while it writes stopped long before.
 */
export function drainUnreadBody(request: IncomingMessage, reply: FastifyReply, bounds: DrainBounds): void {
  if (request.complete) return;
  reply.removeHeader('connection');
  reply.raw.once('finish', () => {
    if (request.complete) return;
    // A dumped body emits no 'data' and the HTTP parser reads the socket natively, so the
    // bytes are counted on the socket; a check a few times a second is plenty for a bound.
    const socket = request.socket;
    const firstByte = socket.bytesRead;
    const deadline = performance.now() + bounds.maxMs;
    const check = setInterval(() => {
      if (request.complete || socket.destroyed) clearInterval(check);
      else if (socket.bytesRead - firstByte > bounds.maxBytes || performance.now() > deadline) socket.destroy();
    }, Math.min(CHECK_EVERY_MS, bounds.maxMs / 4));
    check.unref();
  });
}
