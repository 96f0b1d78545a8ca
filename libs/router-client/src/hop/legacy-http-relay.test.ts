import { GatewayError } from '@switchyard/canonical';
import { INTERNAL_AUTH_REFUSED_HEADER } from '@switchyard/catalog-client';
import type { RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { QUERY_HEADER, ROUTE_HEADER, TENANT_HEADER } from '../route-headers.ts';
import { createHopForwarder } from './create-hop-forwarder.ts';
import { HOP_PATH } from './frames.ts';
import { expectRelayedHeaders, front, listen, routeRequest, setAdmissionHeaders, unusedUrl } from '../testing/forwarder-fixtures.ts';

/** A router of the release before the hop: route calls only, and 404 for the hop's upgrade (its unknown route). */
function oldRouter(handler: RequestListener): Promise<string> {
  return listen((request, response) => {
    if (request.method === 'GET' && request.url === HOP_PATH) response.writeHead(404).end();
    else handler(request, response);
  });
}

/** Sends `count` requests one after another through a forwarder to `router`: the answers' texts and the route calls counted. */
async function forwardInTurn(router: string, count: number): Promise<{ texts: string[]; routeCalls: number }> {
  let routeCalls = 0;
  const forwarder = createHopForwarder({ urls: [router], onRouteCall: () => routeCalls++ });
  const url = await front((response) => forwarder.handle(routeRequest(), response));
  try {
    const texts: string[] = [];
    for (let i = 0; i < count; i++) texts.push(await (await fetch(url)).text());
    return { texts, routeCalls };
  } finally {
    await forwarder.close();
  }
}

describe('the hop forwarder, to routers of the release before the hop (route calls)', () => {
  it('should skip a router that refuses connections and pipe the next one back with the route headers', async () => {
    const seen: Array<string | string[] | undefined> = [];
    const router = await oldRouter((request, response) => {
      seen.push(request.headers[ROUTE_HEADER], request.headers[TENANT_HEADER]);
      response.writeHead(201, { 'x-from': 'router' }).end('answer');
    });
    const forwarder = createHopForwarder({ urls: [await unusedUrl(), router] });
    const url = await front((response) => forwarder.handle(routeRequest(), response));
    try {
      for (let i = 0; i < 3; i++) {
        const answer = await fetch(url);
        expect(answer.status).toBe(201);
        expect(answer.headers.get('x-from')).toBe('router');
        expect(await answer.text()).toBe('answer');
      }
      expect(seen.slice(0, 2)).toEqual(['{"format":"chat-completions","operation":"generate"}', 'acme']);
    } finally {
      await forwarder.close();
    }
  });

  it('should ask an old router for the hop once, then send it route calls for a while', async () => {
    let upgrades = 0;
    let calls = 0;
    const router = await listen((request, response) => {
      if (request.url === HOP_PATH) {
        upgrades++;
        response.writeHead(404).end();
        return;
      }
      calls++;
      response.end('old');
    });
    const { texts, routeCalls } = await forwardInTurn(router, 5);
    expect(texts).toEqual(Array(5).fill('old'));
    expect([upgrades, calls, routeCalls]).toEqual([1, 5, 5]);
  });

  it('should send route calls through a proxy that refuses the upgrade, as a mesh sidecar does with a 403', async () => {
    const router = await listen((request, response) => {
      if (request.headers.upgrade !== undefined) return void response.writeHead(403).end('upgrade failed');
      response.end('through the proxy');
    });
    const { texts, routeCalls } = await forwardInTurn(router, 3);
    expect(texts).toEqual(Array(3).fill('through the proxy'));
    expect(routeCalls).toBe(3);
  });

  it('should relay the answer headers without hop-by-hop ones, keep duplicates, and let them replace headers set before', async () => {
    const router = await oldRouter((_request, response) => {
      response.setHeader('set-cookie', ['a=1', 'b=2']);
      response.setHeader('x-ratelimit-remaining-requests', 'from-router');
      response.setHeader('Keep-Alive', 'timeout=99');
      response.setHeader('Upgrade', 'h2c');
      response.writeHead(200, { 'content-type': 'text/plain', connection: 'keep-alive' }).end('ok');
    });
    const forwarder = createHopForwarder({ urls: [router] });
    const url = await front((response) => {
      setAdmissionHeaders(response);
      return forwarder.handle(routeRequest(), response);
    });
    try {
      await expectRelayedHeaders(await fetch(url));
    } finally {
      await forwarder.close();
    }
  });

  it('should send the client headers, identity, route and query, the hop\'s own names winning over a client header', async () => {
    const seen: Array<Record<string, string | string[] | undefined>> = [];
    const router = await oldRouter((request, response) => {
      seen.push(request.headers);
      response.end();
    });
    const forwarder = createHopForwarder({ urls: [router] });
    const headers = { 'anthropic-beta': 'tools', [TENANT_HEADER]: 'mallory', [ROUTE_HEADER]: 'forged', 'content-type': 'text/plain', [QUERY_HEADER]: 'forged' };
    const url = await front((response) => forwarder.handle(routeRequest({ headers, query: { after: 'x y', limit: '2' } }), response));
    const bare = await front((response) => forwarder.handle(routeRequest({ headers: { [QUERY_HEADER]: 'kept' } }), response));
    try {
      await (await fetch(url)).text();
      await (await fetch(bare)).text();
      expect(seen[0]).toMatchObject({
        'anthropic-beta': 'tools',
        [TENANT_HEADER]: 'acme',
        'x-switchyard-key-id': 'k',
        'x-request-id': 'req_1',
        'x-switchyard-estimated-tokens': '1',
        [ROUTE_HEADER]: '{"format":"chat-completions","operation":"generate"}',
        'content-type': 'application/octet-stream',
        [QUERY_HEADER]: 'after=x+y&limit=2',
      });
      // As with one merged object before: a client header is overridden only by a header the hop sends.
      expect(seen[1]?.[QUERY_HEADER]).toBe('kept');
    } finally {
      await forwarder.close();
    }
  });

  it('should send its first internal token on every hop, in place of any client authorization', async () => {
    const seen: Array<string | undefined> = [];
    const router = await oldRouter((request, response) => {
      seen.push(request.headers.authorization);
      response.end('ok');
    });
    // The second is only accepted by this process (a rotation under way), never sent.
    const forwarder = createHopForwarder({ urls: [router], tokens: ['internal-token-0123456789', 'previous-token-0123456789'] });
    const url = await front((response) => forwarder.handle(routeRequest({ headers: { authorization: 'Bearer client-key' } }), response));
    try {
      for (let i = 0; i < 2; i++) expect(await (await fetch(url)).text()).toBe('ok');
      expect(seen).toEqual(['Bearer internal-token-0123456789', 'Bearer internal-token-0123456789']);
    } finally {
      await forwarder.close();
    }
  });

  it('should fail a request whose router refused the internal token as an internal error, keep the router in rotation, and pass other 401s on', async () => {
    let attempts = 0;
    const router = await oldRouter((request, response) => {
      attempts++;
      if (request.headers.authorization === 'Bearer right-token-0123456789') {
        // An upstream's own 401, passed through by the router: the client's answer.
        response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"upstream"}');
      } else {
        response.writeHead(401, { [INTERNAL_AUTH_REFUSED_HEADER]: 'refused', 'content-type': 'application/json' }).end('{"error":"internal"}');
      }
    });
    const refusedBy: string[] = [];
    const failures: unknown[] = [];
    const wrong = createHopForwarder({ urls: [router], tokens: ['wrong-token-0123456789'], onRefused: (url) => refusedBy.push(url) });
    const right = createHopForwarder({ urls: [router], tokens: ['right-token-0123456789'] });
    const wrongUrl = await listen((_request, response) => {
      wrong.handle(routeRequest(), response).catch((error: unknown) => {
        failures.push(error);
        const sent = response.headersSent;
        response.writeHead(500).end(sent ? 'sent' : 'unsent');
      });
    });
    const rightUrl = await front((response) => right.handle(routeRequest(), response));
    try {
      for (let i = 0; i < 2; i++) {
        const answer = await fetch(wrongUrl);
        expect(await answer.text()).toBe('unsent');
      }
      expect(attempts).toBe(2);
      expect(refusedBy).toEqual([router, router]);
      expect(failures).toHaveLength(2);
      expect(GatewayError.isInstance(failures[0]) && failures[0].kind).toBe('internal');
      const passed = await fetch(rightUrl);
      expect(passed.status).toBe(401);
      expect(await passed.text()).toBe('{"error":"upstream"}');
    } finally {
      await wrong.close();
      await right.close();
    }
  });

  it('should send an answer of known length with its head in one write, and a stream\'s head before its first event or with it', async () => {
    let releaseEvent = (): void => {};
    let answered = 0;
    const router = await oldRouter((_request, response) => {
      answered++;
      if (answered === 1) {
        // Node sets content-length: the head is not yet written when end() gets the body.
        response.setHeader('content-type', 'application/json');
        response.end('{"answer":1}');
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      // A stream read whole at once: the router sends its head with the events.
      if (answered === 3) return void response.end('data: two\n\n');
      // An upstream slow to its first event: the router sends the head alone first.
      response.flushHeaders();
      releaseEvent = () => response.end('data: one\n\n');
    });
    const forwarder = createHopForwarder({ urls: [router] });
    // Socket writes reaching the kernel, one per _write and one per corked batch (_writev),
    // counted for the request the socket is serving (keep-alive reuses it).
    const writes: number[] = [];
    const serving = new WeakMap<Socket, number>();
    const url = await front((response) => {
      const socket = response.socket as Socket & { _write: (...args: unknown[]) => void; _writev: (...args: unknown[]) => void };
      if (!serving.has(socket)) {
        const count = () => writes[serving.get(socket)!]!++;
        const { _write: write, _writev: writev } = socket;
        socket._write = (...args) => (count(), write.apply(socket, args));
        socket._writev = (...args) => (count(), writev.apply(socket, args));
      }
      serving.set(socket, writes.push(0) - 1);
      return forwarder.handle(routeRequest(), response);
    });
    try {
      const answer = await fetch(url);
      expect(await answer.text()).toBe('{"answer":1}');
      const stream = await fetch(url);
      expect(stream.headers.get('content-type')).toBe('text/event-stream');
      releaseEvent();
      expect(await stream.text()).toBe('data: one\n\n');
      const whole = await fetch(url);
      expect(await whole.text()).toBe('data: two\n\n');
      expect(writes).toEqual([1, 2, 1]);
    } finally {
      await forwarder.close();
    }
  });

  it('should leave the client response open when the router breaks off, and close a half-written event', async () => {
    const router = await oldRouter((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: one\n\n');
      setTimeout(() => {
        response.write('data: {"half');
        setTimeout(() => response.socket?.destroy(), 50);
      }, 50);
    });
    const forwarder = createHopForwarder({ urls: [router] });
    const url = await front((response) => forwarder.handle(routeRequest(), response));
    try {
      const answer = await fetch(url);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toBe('data: one\n\ndata: {"half\n\nfailed\n\n');
    } finally {
      await forwarder.close();
    }
  });

  it('should hold the router back while the client reads slowly, and relay every byte', async () => {
    const chunk = Buffer.alloc(64 * 1024);
    const chunks = 1024;
    let sent = 0;
    const router = await oldRouter((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      const more = (): void => {
        while (sent < chunks) {
          const next = Buffer.alloc(chunk.length, sent % 251);
          sent++;
          if (!response.write(next)) return void response.once('drain', more);
        }
        response.end();
      };
      more();
    });
    const forwarder = createHopForwarder({ urls: [router] });
    const url = await front((response) => forwarder.handle(routeRequest(), response));
    try {
      const answer = await fetch(url);
      const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
      const received: Buffer[] = [];
      const first = await reader.read();
      received.push(Buffer.from(first.value as Uint8Array));
      // The client stops reading: the socket buffers fill up, the hop must stop reading the
      // router, and the router's writes must wait (64 MB would otherwise pile up in ingress).
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(sent).toBeLessThan(chunks / 2);
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received.push(Buffer.from(value));
      }
      const body = Buffer.concat(received);
      expect(body.length).toBe(chunk.length * chunks);
      for (let index = 0; index < chunks; index++) expect(body[index * chunk.length]).toBe(index % 251);
    } finally {
      await forwarder.close();
    }
  });

  it('should abort the hop when the request is aborted, before or during the answer', async () => {
    let closed = 0;
    const router = await oldRouter((_request, response) => {
      response.on('close', () => closed++);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: one\n\n');
    });
    const forwarder = createHopForwarder({ urls: [router] });
    try {
      const early = new AbortController();
      early.abort(new GatewayError('client_closed', 'gone'));
      const written: string[] = [];
      const sink = { setHeader() {}, writeHead() {}, write: (text: Buffer) => written.push(text.toString()), end() {}, once() {}, flushHeaders() {} };
      await expect(forwarder.handle(routeRequest({ signal: early.signal }), sink as unknown as ServerResponse)).rejects.toThrow('gone');

      const late = new AbortController();
      const handled = forwarder.handle(routeRequest({ signal: late.signal }), sink as unknown as ServerResponse);
      await expect.poll(() => written.length).toBe(1);
      late.abort(new GatewayError('client_closed', 'gone later'));
      await expect(handled).rejects.toThrow('gone later');
      // The router sees its connection go: nothing keeps its stream open.
      await expect.poll(() => closed).toBe(1);
    } finally {
      await forwarder.close();
    }
  });
});
