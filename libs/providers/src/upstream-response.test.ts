import { getEventListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Agent, type Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamClient, type UpstreamBody, type UpstreamRequest } from './upstream-client.ts';
import { dispatchUpstream } from './upstream-response.ts';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function upstream(handler: Handler, clientOptions?: ConstructorParameters<typeof UpstreamClient>[0]) {
  const server: Server = createServer((request, response) => {
    // The answer starts once the request body is in, as a real upstream's would.
    request.resume();
    request.on('end', () => handler(request, response));
  });
  server.on('connection', (socket) => socket.setNoDelay(true));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new UpstreamClient(clientOptions);
  cleanups.push(async () => {
    await client.close().catch(() => undefined);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const send = (overrides: Partial<UpstreamRequest> = {}) =>
    client.send({
      origin,
      path: '/v1/chat/completions',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"m"}',
      signal: new AbortController().signal,
      headersTimeoutMs: 5_000,
      bodyTimeoutMs: 5_000,
      ...overrides,
    });
  return { server, send, origin };
}

/** Writes each piece separately, a tick apart, so that they reach the client as separate chunks. */
async function writeApart(response: ServerResponse, pieces: Buffer[]): Promise<void> {
  for (const piece of pieces) {
    response.write(piece);
    await sleep(15);
  }
  response.end();
}

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected a rejection');
}

async function readAll(body: UpstreamBody): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  await body.forEach((chunk) => chunks.push(chunk));
  return chunks;
}

describe('UpstreamClient.send', () => {
  it('should decode a JSON body whose multi-byte characters are split across chunks', async () => {
    const json = JSON.stringify({ content: 'héllo wörld — 日本語 🌍🚀', n: 1 });
    const bytes = Buffer.from(json);
    const inside = (character: string, byte: number) => Buffer.byteLength(json.slice(0, json.indexOf(character))) + byte;
    const cuts = [inside('é', 1), inside('—', 2), inside('日', 1), inside('🌍', 3)];
    const pieces = [0, ...cuts].map((start, index) => bytes.subarray(start, cuts[index] ?? bytes.length));
    const { send } = await upstream((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      void writeApart(response, pieces);
    });

    const chunks = await readAll((await send()).body);
    // Decoded chunk by chunk, the split characters would break.
    expect(chunks.map((chunk) => chunk.toString()).join('')).toContain('\uFFFD');
    expect(Buffer.concat(chunks).toString()).toBe(json);
    expect(await (await send()).body.text()).toBe(json);
    expect(JSON.parse(await (await send()).body.text())).toEqual(JSON.parse(json));
  });

  it('should answer status and headers, drop a byte order mark and read an empty body as empty', async () => {
    const { send } = await upstream((request, response) => {
      if (request.headers['x-empty'] === '1') {
        response.writeHead(204).end();
        return;
      }
      response.writeHead(429, { 'retry-after': '7', 'set-cookie': ['a=1', 'b=2'] }).end('\uFEFF{"error":"slow down"}');
    });
    const answer = await send();
    expect([answer.statusCode, answer.headers['retry-after'], answer.headers['set-cookie']]).toEqual([429, '7', ['a=1', 'b=2']]);
    expect(JSON.parse(await answer.body.text())).toEqual({ error: 'slow down' });
    const empty = await send({ headers: { 'x-empty': '1' } });
    expect([empty.statusCode, await empty.body.text()]).toEqual([204, '']);
  });

  it('should hand over an SSE body chunk by chunk, in order, as it arrives', async () => {
    const events = Array.from({ length: 8 }, (_, index) => `data: {"index":${index}}\n\n`);
    const { send } = await upstream((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      void writeApart(response, events.map((event) => Buffer.from(event)));
    });
    const seen: string[] = [];
    const answer = await send();
    const read = answer.body.forEach((chunk) => seen.push(chunk.toString()));
    // Handed over as they arrive, not at the end.
    await sleep(40);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.join('')).not.toBe(events.join(''));
    await read;
    expect(seen.join('')).toBe(events.join(''));
    expect(seen.length).toBeGreaterThanOrEqual(events.length / 2);
  });

  it('should hand over first what arrived before the reader came, then the rest', async () => {
    const { send } = await upstream((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: early\n\n');
      setTimeout(() => response.end('data: late\n\n'), 60);
    });
    const answer = await send();
    await sleep(30);
    expect(Buffer.concat(await readAll(answer.body)).toString()).toBe('data: early\n\ndata: late\n\n');
    expect(await rejection(answer.body.forEach(() => undefined))).toBeInstanceOf(TypeError);
  });

  it('should stop reading the socket while nobody reads the body yet, so that memory held stays bounded', async () => {
    const piece = Buffer.alloc(64 * 1024, 'x');
    const total = 64 * 1024 * 1024;
    let written = 0;
    const { send } = await upstream((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': total });
      const pump = () => {
        while (written < total) {
          written += piece.length;
          if (!response.write(piece)) {
            response.once('drain', pump);
            return;
          }
        }
        response.end();
      };
      pump();
    });

    const answer = await send();
    await sleep(300);
    // Without backpressure the whole 64 MiB would be in by now; with it, the server waits on
    // loopback socket buffers (a few MiB) and the body's queue (64 KiB).
    expect(written).toBeLessThan(24 * 1024 * 1024);
    let received = 0;
    await answer.body.forEach((chunk) => (received += chunk.length));
    expect([received, written]).toEqual([total, total]);
  });

  it('should reject with the signal reason when aborted before the headers, and free the signal', async () => {
    const { send } = await upstream(() => undefined);
    const controller = new AbortController();
    const answer = send({ signal: controller.signal });
    await sleep(50);
    const reason = new Error('client went away');
    controller.abort(reason);
    expect(await rejection(answer)).toBe(reason);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);

    const aborted = AbortSignal.abort();
    expect((await rejection(send({ signal: aborted }))).name).toBe('AbortError');
  });

  it('should fail the body with the signal reason when aborted mid-body, and close the upstream request', async () => {
    let upstreamClosed!: Promise<void>;
    const { send } = await upstream((request, response) => {
      upstreamClosed = new Promise((resolve) => response.on('close', () => resolve()));
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: first\n\n');
    });

    const iterating = new AbortController();
    const stream = await send({ signal: iterating.signal });
    const seen: string[] = [];
    const pending = stream.body.forEach((chunk) => seen.push(chunk.toString()));
    await sleep(30);
    iterating.abort();
    const error = await rejection(pending);
    expect([seen.join(''), error.name, iterating.signal.aborted]).toEqual(['data: first\n\n', 'AbortError', true]);
    await upstreamClosed;
    expect(getEventListeners(iterating.signal, 'abort')).toHaveLength(0);

    const reading = new AbortController();
    const whole = await send({ signal: reading.signal });
    const text = whole.body.text();
    await sleep(30);
    reading.abort();
    expect((await rejection(text)).name).toBe('AbortError');
    await upstreamClosed;
  });

  it('should fail with undici headers and body timeout codes', async () => {
    const { send } = await upstream((request, response) => {
      if (request.headers['x-stall'] === 'headers') return;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: first\n\n');
    });
    // undici's timers tick about once a second: the three run side by side.
    const failures = await Promise.all([
      rejection(send({ headers: { 'x-stall': 'headers' }, headersTimeoutMs: 100 })),
      send({ bodyTimeoutMs: 100 }).then((answer) => rejection(answer.body.text())),
      send({ bodyTimeoutMs: 100 }).then((answer) => rejection(readAll(answer.body))),
    ]);
    expect(failures.map((failure) => failure.code)).toEqual(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
  });

  it('should make text() and forEach() reject when the upstream breaks the connection mid-body', async () => {
    const { send } = await upstream((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
      response.write('{"partial":');
      setTimeout(() => (request.headers['x-break'] === 'reset' ? request.socket.resetAndDestroy() : request.socket.destroy()), 30);
    });
    expect((await rejection((await send({ headers: { 'x-break': 'reset' } })).body.text())).code).toBe('ECONNRESET');
    expect((await rejection((await send()).body.text())).code).toBe('UND_ERR_SOCKET');
    const chunks: Buffer[] = [];
    const error = await rejection((await send({ headers: { 'x-break': 'reset' } })).body.forEach((chunk) => chunks.push(chunk)));
    expect([error.code, Buffer.concat(chunks).toString()]).toEqual(['ECONNRESET', '{"partial":']);
    expect((await rejection(readAll((await send()).body))).code).toBe('UND_ERR_SOCKET');
  });

  it('should close the upstream request on destroy() or a throwing reader, and fail a pending read with RequestAbortedError', async () => {
    const closes: Promise<boolean>[] = [];
    const { send } = await upstream((_request, response) => {
      closes.push(new Promise((resolve) => response.on('close', () => resolve(response.writableFinished))));
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: first\n\n');
    });

    const answer = await send();
    const pending = answer.body.forEach(() => undefined);
    await sleep(30);
    answer.body.destroy();
    expect((await rejection(pending)).code).toBe('UND_ERR_ABORTED');
    expect(await closes[0]).toBe(false);

    const broken = await send();
    const reason = new Error('relay terminated');
    const text = broken.body.text();
    broken.body.destroy(reason);
    expect(await rejection(text)).toBe(reason);
    expect(await closes[1]).toBe(false);

    // A reader that throws aborts the rest, as leaving BodyReadable's loop did, and the read rejects with what it threw.
    const refusal = new Error('no more');
    const thrown = await rejection(
      (await send()).body.forEach(() => {
        throw refusal;
      }),
    );
    expect(thrown).toBe(refusal);
    expect(await closes[2]).toBe(false);
  });

  it('should refuse to read a body twice', async () => {
    const { send } = await upstream((_request, response) => response.end('{}'));
    const answer = await send();
    expect(await answer.body.text()).toBe('{}');
    expect(await rejection(answer.body.text())).toBeInstanceOf(TypeError);
  });

  it('should reuse one keep-alive connection for sequential requests, whether bodies are read whole, chunk by chunk or left unread', async () => {
    const ports: number[] = [];
    const { send } = await upstream(
      (request, response) => {
        ports.push(request.socket.remotePort ?? 0);
        response.end('{"ok":true}');
      },
      { connectionsPerOrigin: 1 },
    );
    const signal = new AbortController().signal;
    expect(await (await send({ signal })).body.text()).toBe('{"ok":true}');
    await readAll((await send({ signal })).body);
    // A small body is taken in whole even if nobody reads it: the connection is not held.
    await send();
    expect(JSON.parse(await (await send({ signal })).body.text())).toEqual({ ok: true });
    expect(ports).toHaveLength(4);
    expect(new Set(ports).size).toBe(1);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('should let go of the request controller once the body is read, though the body is still held', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { origin } = await upstream((_request, response) => response.end('{"ok":true}'));
    // The controller holds the request's raw headers and body: a router holding a finished
    // body while its usage is made durable must not hold those too.
    let controller: WeakRef<Dispatcher.DispatchController> | undefined;
    const agent = new Agent().compose((dispatch) => (options, handler) =>
      dispatch(options, {
        onRequestStart: (started, context) => {
          controller = new WeakRef(started);
          handler.onRequestStart?.(started, context);
        },
        onResponseStart: (...args) => handler.onResponseStart?.(...args),
        onResponseData: (...args) => handler.onResponseData?.(...args),
        onResponseEnd: (...args) => handler.onResponseEnd?.(...args),
        onResponseError: (...args) => handler.onResponseError?.(...args),
      }),
    );
    cleanups.push(() => agent.close());
    const answer = await dispatchUpstream(agent, { origin, path: '/', method: 'GET' }, new AbortController().signal);
    expect(await answer.body.text()).toBe('{"ok":true}');
    await sleep(0);
    gc();
    await sleep(0);
    gc();
    expect(controller).toBeDefined();
    expect(controller?.deref()).toBeUndefined();
    expect(answer.statusCode).toBe(200);
  });
});
