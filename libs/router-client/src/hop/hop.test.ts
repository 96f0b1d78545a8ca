import { GatewayError } from '@switchyard/canonical';
import type { InternalRefusal } from '@switchyard/catalog-client';
import { createServer, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { RouteHandler, RouteRequest } from '../route-request.ts';
import { closeAfterTest, expectRelayedHeaders, front, listen, routeRequest, setAdmissionHeaders, unusedUrl } from '../testing/forwarder-fixtures.ts';
import { acceptHops, type AcceptHopsOptions, type HopListener } from './accept-hops.ts';
import { createHopForwarder, type HopForwarderOptions } from './create-hop-forwarder.ts';
import { CANCEL, DATA, END, frameHead, FrameReader, GOAWAY, HEAD, HOP_PATH, HOP_PROTOCOL, OPEN, openPayload } from './frames.ts';

interface TestRouter {
  url: string;
  hops: HopListener;
  /** Upgraded connections the router took, in order. */
  sockets: Socket[];
}

/** A router: an HTTP server that takes hop upgrades and serves each request with `handler`. */
async function router(handler: RouteHandler, options: Partial<AcceptHopsOptions> = {}): Promise<TestRouter> {
  const server = createServer((_request, response) => response.writeHead(404).end());
  const sockets: Socket[] = [];
  const hops = acceptHops(server, { handler, maxRequestBytes: 1 << 20, ...options });
  server.on('upgrade', (_request, socket: Socket) => sockets.push(socket));
  return { url: await listen(server), hops, sockets };
}

/** Something at the router's address that takes connections and drops them, counting them. */
async function resettingRouter(): Promise<{ url: string; attempts(): number }> {
  let attempts = 0;
  const server = createServer();
  server.on('connection', (socket: Socket) => {
    attempts++;
    socket.destroy();
  });
  return { url: await listen(server), attempts: () => attempts };
}

function forwarder(options: HopForwarderOptions) {
  return closeAfterTest(createHopForwarder(options));
}

describe('the ingress → router hop', () => {
  it('should carry each request whole to the router, skipping one that refuses connections, and its answer back', async () => {
    const seen: Array<Omit<RouteRequest, 'signal' | 'receivedAt'>> = [];
    const live = await router(async (request, response) => {
      const { signal: _signal, receivedAt: _receivedAt, ...rest } = request;
      seen.push(rest);
      response.writeHead(201, { 'x-from': 'router', 'content-type': 'text/plain' }).end(`answer to ${request.body.toString()}`);
    });
    const hop = forwarder({ urls: [await unusedUrl(), live.url] });
    const sent = routeRequest({
      route: { format: 'generate-content', operation: 'generate', model: 'gemini-x', stream: true },
      identity: { tenantId: 'acme', keyId: 'ci', requestId: 'req_7' },
      body: Buffer.from('{"contents":"héllo"}'),
      headers: { 'anthropic-beta': 'tools', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
      query: { after: 'x y', twice: ['a', 'b'] as unknown as string },
      estimatedTokens: 12,
      admittedAt: 1_786_708_800_123,
    });
    const url = await front((response) => hop.handle(sent, response));
    for (let i = 0; i < 3; i++) {
      const answer = await fetch(url);
      expect(answer.status).toBe(201);
      expect(answer.headers.get('x-from')).toBe('router');
      expect(await answer.text()).toBe('answer to {"contents":"héllo"}');
    }
    const { signal: _signal, receivedAt: _receivedAt, ...expected } = sent;
    // A parameter given twice travels joined, as URLSearchParams writes it.
    expect(seen[0]).toEqual({ ...expected, query: { after: 'x y', twice: 'a,b' } });
    expect(seen).toHaveLength(3);
  });

  it('should reach a router at an IPv6 literal', async () => {
    const v6 = createServer();
    acceptHops(v6, { handler: async (_request, response) => void response.end('over ::1'), maxRequestBytes: 1 << 20 });
    await new Promise<void>((resolve) => v6.listen(0, '::1', resolve));
    const hop = forwarder({ urls: [`http://[::1]:${(v6.address() as AddressInfo).port}`] });
    const url = await front((response) => hop.handle(routeRequest(), response));
    try {
      expect(await (await fetch(url)).text()).toBe('over ::1');
    } finally {
      await hop.close();
      await new Promise((resolve) => v6.close(resolve));
    }
  });

  it('should relay the answer headers without hop-by-hop ones, keep duplicates, and let them replace headers set before', async () => {
    const live = await router(async (_request, response) => {
      response
        .writeHead(200, {
          'set-cookie': ['a=1', 'b=2'],
          'x-ratelimit-remaining-requests': 'from-router',
          'keep-alive': 'timeout=99',
          upgrade: 'h2c',
          connection: 'keep-alive',
          'content-type': 'text/plain',
        })
        .end('ok');
    });
    const hop = forwarder({ urls: [live.url] });
    const url = await front((response) => {
      setAdmissionHeaders(response);
      return hop.handle(routeRequest(), response);
    });
    await expectRelayedHeaders(await fetch(url));
  });

  it('should carry many requests at once on the connections it keeps, each answer to its own client', async () => {
    const live = await router(async (request, response) => {
      const id = request.identity.requestId;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let event = 0; event < 5; event++) {
        response.write(`data: ${id}-${event}\n\n`);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      }
      response.end();
    });
    const hop = forwarder({ urls: [live.url], connections: 2 });
    let next = 0;
    const url = await front((response) => hop.handle(routeRequest({ identity: { tenantId: 'acme', keyId: 'k', requestId: `r${next++}` } }), response));
    const answers = await Promise.all(Array.from({ length: 60 }, async () => (await fetch(url)).text()));
    const ids = answers.map((text) => /data: (r\d+)-0/.exec(text)?.[1]);
    answers.forEach((text, index) => expect(text).toBe([0, 1, 2, 3, 4].map((event) => `data: ${ids[index]}-${event}\n\n`).join('')));
    expect(new Set(ids).size).toBe(60);
    expect(live.sockets).toHaveLength(2);
    expect([hop.connections, live.hops.connections]).toEqual([2, 2]);
    await hop.close();
    expect([hop.connections, live.hops.connections]).toEqual([0, 0]);
  });

  it('should send its first internal token on the upgrade, and fail requests a router refuses it for as the gateway\'s internal error', async () => {
    const refusals: InternalRefusal[] = [];
    const served: string[] = [];
    const live = await router(
      async (request, response) => {
        served.push(request.identity.requestId);
        response.writeHead(200).end('ok');
      },
      { tokens: ['right-token-0123456789', 'previous-token-0123456789'], onRefused: (refusal) => refusals.push(refusal) },
    );
    // The second token is only accepted by the ingress's own process (a rotation under way), never sent.
    const right = forwarder({ urls: [live.url], tokens: ['previous-token-0123456789', 'right-token-0123456789'] });
    expect(await (await fetch(await front((response) => right.handle(routeRequest({ headers: { authorization: 'Bearer client-key' } }), response)))).text()).toBe('ok');

    const refusedBy: string[] = [];
    const failures: unknown[] = [];
    const wrong = forwarder({ urls: [live.url], tokens: ['wrong-token-0123456789'], onRefused: (url) => refusedBy.push(url) });
    const wrongUrl = await listen((_request, response) => {
      wrong.handle(routeRequest(), response).catch((error: unknown) => {
        failures.push(error);
        const sent = response.headersSent;
        response.writeHead(500).end(sent ? 'sent' : 'unsent');
      });
    });
    expect(await (await fetch(wrongUrl)).text()).toBe('unsent');
    expect(served).toEqual(['req_1']);
    expect(refusedBy).toEqual([live.url]);
    expect(GatewayError.isInstance(failures[0]) && failures[0].kind).toBe('internal');
    expect(refusals).toEqual([{ count: 1, path: HOP_PATH, remoteAddress: '127.0.0.1' }]);
  });

  it('should try each router once per request, those marked down last', async () => {
    const down = await resettingRouter();
    const alsoDown = await resettingRouter();
    const live = await router(async (_request, response) => void response.end('live'));
    const hop = forwarder({ urls: [down.url, live.url], connections: 1 });
    const url = await front((response) => hop.handle(routeRequest(), response));
    const dead = forwarder({ urls: [down.url, alsoDown.url], connections: 1 });
    const deadUrl = await front((response) => dead.handle(routeRequest(), response));
    for (let i = 0; i < 4; i++) expect(await (await fetch(url)).text()).toBe('live');
    // Marked down by the first request, the resetting router is not tried while another serves.
    expect(down.attempts()).toBe(1);
    // All down: each is tried once, the next request tries each once again.
    expect((await fetch(deadUrl)).status).toBe(502);
    expect([down.attempts(), alsoDown.attempts()]).toEqual([2, 1]);
    expect((await fetch(deadUrl)).status).toBe(502);
    expect([down.attempts(), alsoDown.attempts()]).toEqual([3, 2]);
  });

  it('should take a router that does not answer the upgrade in time as down, and replace a connection past its age', async () => {
    const silent = createServer();
    // Takes the upgrade and never answers it; lets go of the socket once the ingress has.
    silent.on('upgrade', (_request, socket: Socket) => socket.resume().once('end', () => socket.destroy()));
    const silentUrl = await listen(silent);
    const live = await router(async (_request, response) => void response.end('live'));
    const hop = forwarder({ urls: [silentUrl, live.url], connections: 1, connectTimeoutMs: 200, maxConnectionAgeMs: 300 });
    const url = await front((response) => hop.handle(routeRequest(), response));
    const started = performance.now();
    expect(await (await fetch(url)).text()).toBe('live');
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(await (await fetch(url)).text()).toBe('live');
    expect(live.sockets).toHaveLength(1);
    // Past its age, the connection takes no new streams: the next request opens another, and the old one closes.
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await (await fetch(url)).text()).toBe('live');
    expect(live.sockets).toHaveLength(2);
    await expect.poll(() => live.hops.connections).toBe(1);
  });

  it('should send a stream\'s head before its first event, and an answer of known length with its head', async () => {
    let releaseEvent = (): void => {};
    const live = await router(async (request, response) => {
      if (request.identity.requestId === 'whole') return void response.writeHead(200, { 'content-type': 'application/json', 'content-length': 12 }).end('{"answer":1}');
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      // An upstream slow to its first event: the router sends the head alone first.
      response.flushHeaders();
      releaseEvent = () => response.end('data: one\n\n');
    });
    const hop = forwarder({ urls: [live.url] });
    const streamUrl = await front((response) => hop.handle(routeRequest(), response));
    const stream = await fetch(streamUrl);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    releaseEvent();
    expect(await stream.text()).toBe('data: one\n\n');
    const wholeUrl = await front((response) => hop.handle(routeRequest({ identity: { tenantId: 'acme', keyId: 'k', requestId: 'whole' } }), response));
    const whole = await fetch(wholeUrl);
    expect(whole.headers.get('content-length')).toBe('12');
    expect(await whole.text()).toBe('{"answer":1}');
  });

  it('should leave the client response open when the connection to the router is lost mid-answer, and close a half-written event', async () => {
    const live = await router(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: one\n\n');
      setTimeout(() => {
        response.write('data: {"half');
        setTimeout(() => live.sockets[0]?.destroy(), 50);
      }, 50);
    });
    const hop = forwarder({ urls: [live.url] });
    const url = await front((response) => hop.handle(routeRequest(), response));
    const answer = await fetch(url);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('data: one\n\ndata: {"half\n\nfailed\n\n');
    // A new connection takes the next request.
    live.sockets.length = 0;
    const again = await fetch(url);
    expect(again.status).toBe(200);
  });

  it('should relay every byte of a large answer to a client that reads slowly', async () => {
    const chunk = 64 * 1024;
    const chunks = 256;
    const live = await router(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let index = 0; index < chunks; index++) response.write(Buffer.alloc(chunk, index % 251));
      response.end();
    });
    const hop = forwarder({ urls: [live.url] });
    const url = await front((response) => hop.handle(routeRequest(), response));
    const answer = await fetch(url);
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    const received: Buffer[] = [];
    const first = await reader.read();
    received.push(Buffer.from(first.value as Uint8Array));
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received.push(Buffer.from(value));
    }
    const body = Buffer.concat(received);
    expect(body.length).toBe(chunk * chunks);
    for (let index = 0; index < chunks; index++) expect(body[index * chunk]).toBe(index % 251);
  });

  it('should cancel the router\'s answer when the request is aborted, before or during it', async () => {
    const aborted: string[] = [];
    let closed = 0;
    const live = await router(async (request, response) => {
      request.signal.addEventListener('abort', () => aborted.push(request.identity.requestId));
      response.on('close', () => closed++);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: one\n\n');
    });
    const hop = forwarder({ urls: [live.url] });
    const written: string[] = [];
    const sink = { setHeader() {}, writeHead() {}, write: (text: Buffer) => written.push(text.toString()), end() {}, flushHeaders() {}, writableNeedDrain: false };
    const early = new AbortController();
    early.abort(new GatewayError('client_closed', 'gone'));
    await expect(hop.handle(routeRequest({ signal: early.signal }), sink as unknown as ServerResponse)).rejects.toThrow('gone');

    const late = new AbortController();
    const handled = hop.handle(routeRequest({ signal: late.signal, identity: { tenantId: 'acme', keyId: 'k', requestId: 'late' } }), sink as unknown as ServerResponse);
    await expect.poll(() => written.length).toBe(1);
    late.abort(new GatewayError('client_closed', 'gone later'));
    await expect(handled).rejects.toThrow('gone later');
    // Only the request that reached the router is cancelled there; its answer is let go.
    await expect.poll(() => aborted).toEqual(['late']);
    expect(closed).toBe(1);
  });

  it('should finish the streams a draining router carries, send new ones elsewhere, and close the drained connection', async () => {
    let release = (): void => {};
    const draining = await router(async (request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: first\n\n');
      release = () => response.end(`data: last of ${request.identity.requestId}\n\n`);
    });
    const other = await router(async (_request, response) => void response.end('other'));
    const hop = forwarder({ urls: [draining.url, other.url], connections: 1 });
    let next = 0;
    const url = await front((response) => hop.handle(routeRequest({ identity: { tenantId: 'acme', keyId: 'k', requestId: `r${next++}` } }), response));
    const inFlight = await fetch(url);
    const reader = (inFlight.body as ReadableStream<Uint8Array>).getReader();
    expect(Buffer.from((await reader.read()).value as Uint8Array).toString()).toBe('data: first\n\n');
    draining.hops.drain();
    // Once GOAWAY is in, no new stream goes to the draining router's connection.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await (await fetch(url)).text()).toBe('other');
    expect(draining.hops.connections).toBe(1);
    release();
    let rest = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += Buffer.from(value).toString();
    }
    expect(rest).toBe('data: last of r0\n\n');
    await expect.poll(() => draining.hops.connections).toBe(0);
  });

  it('should answer a request it cannot read with a 400, and drop a connection that breaks the framing', async () => {
    const served: string[] = [];
    const live = await router(async (request, response) => {
      served.push(request.identity.requestId);
      response.end('ok');
    });
    const raw = await rawHop(live.url);
    raw.send(OPEN, 1, Buffer.concat([Buffer.from([0, 0, 0, 4]), Buffer.from('nope')]));
    raw.send(OPEN, 3, Buffer.concat(openPayload({ route: { format: 'chat-completions', operation: 'generate' }, tenantId: 't', keyId: 'k', requestId: 'fine', headers: {}, query: {}, estimatedTokens: 0 }, Buffer.from('{}')).chunks));
    await expect.poll(() => raw.frames.filter(([type]) => type === END).length).toBe(2);
    const [status, headers] = JSON.parse(raw.frames.find(([type, stream]) => type === HEAD && stream === 1)?.[2] ?? '[]') as [number, Record<string, string>];
    expect(status).toBe(400);
    expect(headers['content-type']).toBe('application/json');
    expect(raw.frames.find(([type, stream]) => type === END && stream === 3)?.[2]).toBe('ok');
    expect(served).toEqual(['fine']);
    // A CANCEL of a stream that is over is nothing; a frame type the router does not take ends the connection.
    raw.send(CANCEL, 3);
    raw.send(DATA, 5, Buffer.from('x'));
    await raw.closed;
    expect(live.hops.connections).toBe(0);
  });

  it('should refuse an upgrade to anything but the hop, and a request larger than it takes', async () => {
    const live = await router(async (_request, response) => void response.end('ok'), { maxRequestBytes: 100 });
    const other = await fetch(live.url + HOP_PATH, { headers: { connection: 'upgrade', upgrade: 'websocket' } }).catch((error: unknown) => error);
    expect(other instanceof Response ? other.status : 400).toBe(400);
    const raw = await rawHop(live.url);
    raw.send(OPEN, 1, Buffer.alloc(101));
    await raw.closed;
    expect(raw.frames).toEqual([]);
  });

  it('should stop taking streams on a connection after GOAWAY while the router keeps serving those already sent', async () => {
    const live = await router(async (_request, response) => void setTimeout(() => response.end('late'), 30));
    const raw = await rawHop(live.url);
    const open = (stream: number) =>
      raw.send(OPEN, stream, Buffer.concat(openPayload({ route: { format: 'chat-completions', operation: 'generate' }, tenantId: 't', keyId: 'k', requestId: `s${stream}`, headers: {}, query: {}, estimatedTokens: 0 }, Buffer.alloc(0)).chunks));
    open(1);
    live.hops.drain();
    // Sent before the GOAWAY reached the ingress: still served.
    open(3);
    await expect.poll(() => raw.frames.filter(([type]) => type === END)).toHaveLength(2);
    // The ingress ends the connection, having no stream left on it; the router follows.
    raw.end();
    await raw.closed;
    expect(raw.frames.filter(([type]) => type === GOAWAY)).toHaveLength(1);
    expect(raw.frames.filter(([type]) => type === END).map(([, stream, payload]) => [stream, payload])).toEqual([
      [1, 'late'],
      [3, 'late'],
    ]);
  });
});

/** A hop connection spoken by hand: the upgrade, then frames written and read as they are. */
async function rawHop(url: string) {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const frames: Array<[number, number, string]> = [];
  const reader = new FrameReader((type, stream, payload) => frames.push([type, stream, payload.toString()]), 1 << 20);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    let head = Buffer.alloc(0);
    const onData = (bytes: Buffer) => {
      head = Buffer.concat([head, bytes]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      if (!head.subarray(0, end).toString().startsWith('HTTP/1.1 101')) return reject(new Error(head.toString()));
      socket.on('data', (more: Buffer) => reader.push(more));
      if (head.length > end + 4) reader.push(head.subarray(end + 4));
      resolve();
    };
    socket.on('data', onData);
    socket.write(`GET ${HOP_PATH} HTTP/1.1\r\nhost: ${hostname}\r\nconnection: upgrade\r\nupgrade: ${HOP_PROTOCOL}\r\n\r\n`);
  });
  return {
    frames,
    closed,
    end() {
      socket.end();
    },
    send(type: number, stream: number, payload = Buffer.alloc(0)) {
      socket.write(Buffer.concat([frameHead(type, stream, payload.length), payload]));
    },
  };
}
