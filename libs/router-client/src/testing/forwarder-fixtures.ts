import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect } from 'vitest';
import { closePartialEvent } from '../relay-to-client.ts';
import type { RouteRequest } from '../route-request.ts';

/** What the forwarder tests hold open; closed after each test. */
const servers: Server[] = [];
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Closes `resource` after the test. */
export function closeAfterTest<T extends { close(): Promise<void> }>(resource: T): T {
  closers.push(() => resource.close());
  return resource;
}

/** Listens on a free loopback port until the test ends. */
export function listen(server: Server | RequestListener): Promise<string> {
  const listening = typeof server === 'function' ? createServer(server) : server;
  servers.push(listening);
  return new Promise((resolve) => listening.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(listening.address() as AddressInfo).port}`)));
}

/** An address nothing listens on. */
export async function unusedUrl(): Promise<string> {
  const url = await listen(createServer());
  await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()));
  return url;
}

export function routeRequest(overrides: Partial<RouteRequest> = {}): RouteRequest {
  return {
    route: { format: 'chat-completions', operation: 'generate' },
    identity: { tenantId: 'acme', keyId: 'k', requestId: 'req_1' },
    body: Buffer.from('{}'),
    headers: {},
    query: {},
    signal: new AbortController().signal,
    receivedAt: 0,
    estimatedTokens: 1,
    ...overrides,
  };
}

/** A front server (the ingress) handing every request to `forward`; its failures end the response with `failed`. */
export function front(forward: (response: ServerResponse) => Promise<void>): Promise<string> {
  return listen((_request, response) => {
    forward(response).catch(() => {
      closePartialEvent(response);
      if (response.headersSent) response.end('failed\n\n');
      else response.writeHead(502).end('failed');
    });
  });
}

/** What ingress's admission sets on the client response before it forwards. */
export function setAdmissionHeaders(response: ServerResponse): void {
  response.setHeader('x-ratelimit-limit-requests', '60');
  response.setHeader('x-ratelimit-remaining-requests', '59');
}

/**
 * The client's answer to a router that answered `ok` with the headers both relay tests send:
 * duplicates kept, hop-by-hop ones dropped, the router's replacing admission's of the same name.
 */
export async function expectRelayedHeaders(answer: Response): Promise<void> {
  expect(answer.status).toBe(200);
  expect(await answer.text()).toBe('ok');
  expect(answer.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
  expect(answer.headers.get('content-type')).toBe('text/plain');
  expect(answer.headers.get('x-ratelimit-limit-requests')).toBe('60');
  expect(answer.headers.get('x-ratelimit-remaining-requests')).toBe('from-router');
  expect(answer.headers.get('upgrade')).toBeNull();
  // The front's own connection headers, not the router's.
  expect(answer.headers.get('keep-alive')).not.toBe('timeout=99');
}
