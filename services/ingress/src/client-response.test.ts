import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientResponse } from './client-response.ts';

const HELD = { 'x-ratelimit-remaining-requests': '59', 'x-ratelimit-reset-requests': '1s' };

let server: Server | undefined;

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A real server on loopback whose responses are ClientResponses, answering one request with `answer`. */
async function answered(answer: (response: ClientResponse) => void): Promise<Response> {
  server = createServer({ ServerResponse: ClientResponse }, (_request, response) => answer(response as ClientResponse));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
}

describe('ClientResponse', () => {
  it("should write held headers in the answer's own head, under its headers of the same name", async () => {
    const response = await answered((client) => {
      client.holdHeaders({ ...HELD });
      // Held, not set: nothing is on the response ahead of its head.
      expect(client.getHeaderNames()).toEqual([]);
      client.writeHead(200, { 'content-type': 'text/plain', 'x-ratelimit-reset-requests': 'own' }).end('ok');
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('59');
    expect(response.headers.get('x-ratelimit-reset-requests')).toBe('own');
    expect(response.headers.get('content-type')).toBe('text/plain');
    expect(await response.text()).toBe('ok');
  });

  it('should keep the status message given with the head', async () => {
    const response = await answered((client) => {
      client.holdHeaders({ ...HELD });
      client.writeHead(202, 'Taken', { 'content-type': 'text/plain' }).end();
    });
    expect(response.status).toBe(202);
    expect(response.statusText).toBe('Taken');
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('59');
  });

  it('should let headers set ahead of a head that names none win over the held ones', async () => {
    const response = await answered((client) => {
      client.holdHeaders({ ...HELD });
      client.setHeader('x-ratelimit-reset-requests', 'set-ahead');
      client.setHeader('content-type', 'text/plain');
      client.writeHead(201).end();
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('59');
    expect(response.headers.get('x-ratelimit-reset-requests')).toBe('set-ahead');
  });

  it('should write held headers with a head given as a list of names and values', async () => {
    const response = await answered((client) => {
      client.holdHeaders({ ...HELD });
      client.writeHead(200, ['content-type', 'text/plain', 'x-extra', 'yes']).end();
    });
    expect(response.headers.get('x-extra')).toBe('yes');
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('59');
  });

  it('should write a head as Node does when nothing is held', async () => {
    const response = await answered((client) => void client.writeHead(204, { 'x-own': '1' }).end());
    expect(response.status).toBe(204);
    expect(response.headers.get('x-own')).toBe('1');
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBeNull();
  });
});
