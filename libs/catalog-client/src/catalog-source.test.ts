import { parseConfig } from '@switchyard/config';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { buildSnapshot } from './build-snapshot.ts';
import { CATALOG_SNAPSHOT_PATH, createHttpCatalog, type CatalogSource, type HttpCatalogOptions } from './catalog-source.ts';
import type { CatalogSnapshot } from './snapshot.ts';

const { snapshot: base } = buildSnapshot(
  parseConfig(
    `
providers:
  sim: { protocol: simulator }
models:
  - { name: a, deployments: [{ provider: sim, model: x }] }
tenants:
  - id: acme
`,
    'inline.yaml',
    {},
  ),
);

interface Seen {
  version: string | null;
  waitMs: string | null;
  authorization: string | undefined;
}

/**
 * A stand-in catalog: serves `current`, long-polls like the catalog service when `longPoll`
 * is set (holding requests until `publish`), and records every request.
 */
async function startStubCatalog(options: { longPoll: boolean; status?: () => number | undefined }) {
  let current: CatalogSnapshot = { ...base, version: 1 };
  const seen: Seen[] = [];
  const held = new Set<() => void>();
  let closedByClient = 0;
  const answer = (request: IncomingMessage, response: ServerResponse, known: string | null) => {
    if (known !== null && Number(known) === current.version) {
      response.writeHead(304).end();
    } else {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(current));
    }
  };
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== CATALOG_SNAPSHOT_PATH) return void response.writeHead(404).end();
    const known = url.searchParams.get('version');
    const waitMs = url.searchParams.get('waitMs');
    seen.push({ version: known, waitMs, authorization: request.headers.authorization });
    const status = options.status?.();
    if (status !== undefined) return void response.writeHead(status).end();
    if (!options.longPoll || waitMs === null || Number(known) !== current.version) return answer(request, response, known);
    const release = () => {
      clearTimeout(timer);
      held.delete(release);
      if (!response.destroyed) answer(request, response, known);
    };
    const timer = setTimeout(release, Number(waitMs));
    held.add(release);
    response.on('close', () => {
      if (!response.writableEnded) closedByClient += 1;
      clearTimeout(timer);
      held.delete(release);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    heldCount: () => held.size,
    closedByClient: () => closedByClient,
    publish(next: Partial<CatalogSnapshot>) {
      current = { ...current, ...next, version: current.version + 1 };
      for (const release of [...held]) release();
    },
  };
}

function follow(options: HttpCatalogOptions): CatalogSource {
  const source = createHttpCatalog(options);
  onTestFinished(() => source.close());
  return source;
}

describe('createHttpCatalog', () => {
  it('should long-poll: send its version and waitMs, and apply a change as soon as the catalog answers', async () => {
    const stub = await startStubCatalog({ longPoll: true });
    const source = follow({ url: stub.url, pollMs: 60_000, longPollMs: 10_000 });
    await source.ready();
    expect(stub.seen[0]).toEqual({ version: '-1', waitMs: null, authorization: undefined });
    await vi.waitFor(() => expect(stub.heldCount()).toBe(1));
    expect(stub.seen[1]).toEqual({ version: '1', waitMs: '10000', authorization: undefined });

    const publishedAt = Date.now();
    stub.publish({ tenants: [] });
    await vi.waitFor(() => expect(source.current().version).toBe(2), { interval: 2 });
    expect(Date.now() - publishedAt).toBeLessThan(200);
    expect(source.current().tenant('acme')).toBeUndefined();
    // And straight back to waiting for the next one.
    await vi.waitFor(() => expect(stub.heldCount()).toBe(1));
  });

  it('should ask again at once when a held request ends with 304', async () => {
    const stub = await startStubCatalog({ longPoll: true });
    const source = follow({ url: stub.url, pollMs: 60_000, longPollMs: 100 });
    await source.ready();
    await vi.waitFor(() => expect(stub.seen.length).toBeGreaterThanOrEqual(5), { timeout: 2_000 });
    expect(source.current().version).toBe(1);
  });

  it('should space its polls by pollMs against a catalog that answers 304 at once (no long-polling)', async () => {
    const stub = await startStubCatalog({ longPoll: false });
    const source = follow({ url: stub.url, pollMs: 150 });
    await source.ready();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(stub.seen.length).toBeGreaterThanOrEqual(3);
    expect(stub.seen.length).toBeLessThanOrEqual(6);
    stub.publish({});
    await vi.waitFor(() => expect(source.current().version).toBe(2), { timeout: 1_000 });
  });

  it('should poll plainly with longPollMs 0', async () => {
    const stub = await startStubCatalog({ longPoll: true });
    const source = follow({ url: stub.url, pollMs: 50, longPollMs: 0 });
    await source.ready();
    await vi.waitFor(() => expect(stub.seen.length).toBeGreaterThanOrEqual(3));
    expect(stub.seen.every((request) => request.waitMs === null)).toBe(true);
  });

  it('should keep the last good snapshot when the catalog fails, and report it', async () => {
    let failing = false;
    const stub = await startStubCatalog({ longPoll: false, status: () => (failing ? 503 : undefined) });
    const errors: unknown[] = [];
    const source = follow({ url: stub.url, pollMs: 50, onError: (error) => errors.push(error) });
    await source.ready();
    failing = true;
    await vi.waitFor(() => expect(errors.length).toBeGreaterThanOrEqual(2));
    expect(String(errors[0])).toMatch(/503/);
    expect(source.current().version).toBe(1);
    failing = false;
    stub.publish({});
    await vi.waitFor(() => expect(source.current().version).toBe(2));
  });

  it('should send the internal token on every poll, and name it when the catalog refuses', async () => {
    let refusing = false;
    const stub = await startStubCatalog({ longPoll: false, status: () => (refusing ? 401 : undefined) });
    const errors: unknown[] = [];
    const source = follow({ url: stub.url, pollMs: 50, token: 'internal-token-0123456789', onError: (error) => errors.push(error) });
    await source.ready();
    refusing = true;
    await vi.waitFor(() => expect(errors.length).toBeGreaterThanOrEqual(1));
    expect(String(errors[0])).toMatch(/401: SWITCHYARD_INTERNAL_TOKEN/);
    expect(String(errors[0])).not.toContain('internal-token-0123456789');
    expect(stub.seen.every((request) => request.authorization === 'Bearer internal-token-0123456789')).toBe(true);
  });

  it('should abandon a held request on close and poll no more', async () => {
    const stub = await startStubCatalog({ longPoll: true });
    const errors: unknown[] = [];
    const source = createHttpCatalog({ url: stub.url, pollMs: 10, longPollMs: 30_000, onError: (error) => errors.push(error) });
    await source.ready();
    await vi.waitFor(() => expect(stub.heldCount()).toBe(1));
    await source.close();
    await vi.waitFor(() => expect(stub.closedByClient()).toBe(1));
    const requests = stub.seen.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stub.seen.length).toBe(requests);
    expect(errors).toEqual([]);
  });
});
