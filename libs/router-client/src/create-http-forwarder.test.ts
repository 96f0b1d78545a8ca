import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpForwarder } from './create-http-forwarder.ts';
import { ROUTE_HEADER, TENANT_HEADER } from './route-headers.ts';

const servers: Server[] = [];

function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

async function unusedUrl(): Promise<string> {
  const url = await listen(() => {});
  await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()));
  return url;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('createHttpForwarder', () => {
  it('should skip a router that refuses connections and pipe the next one back with the route headers', async () => {
    const seen: Array<string | string[] | undefined> = [];
    const router = await listen((request, response) => {
      seen.push(request.headers[ROUTE_HEADER], request.headers[TENANT_HEADER]);
      response.writeHead(201, { 'x-from': 'router' }).end('answer');
    });
    const forwarder = createHttpForwarder({ urls: [await unusedUrl(), router] });
    const front = await listen((request, response) => {
      void forwarder.handle(
        {
          route: { format: 'chat-completions', operation: 'generate' },
          identity: { tenantId: 'acme', keyId: 'k', requestId: 'req_1' },
          body: Buffer.from('{}'),
          headers: {},
          query: {},
          signal: new AbortController().signal,
          receivedAt: 0,
          estimatedTokens: 1,
        },
        response,
      );
    });
    try {
      for (let i = 0; i < 3; i++) {
        const answer = await fetch(front);
        expect(answer.status).toBe(201);
        expect(answer.headers.get('x-from')).toBe('router');
        expect(await answer.text()).toBe('answer');
      }
      expect(seen.slice(0, 2)).toEqual(['{"format":"chat-completions","operation":"generate"}', 'acme']);
    } finally {
      await forwarder.close();
    }
  });
});
