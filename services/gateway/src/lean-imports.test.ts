import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** Every package a Redis-less `all` imports, each target's included. */
const ALL_IMPORTS = `
  await import('@switchyard/gateway');
  await import('@switchyard/ratelimit');
  await import('@switchyard/usage-events');
  await import('@switchyard/router');
  await import('@switchyard/router-client');
  await import('@switchyard/providers');
  await import('@switchyard/catalog');
  await import('@switchyard/ingress');
  await import('@switchyard/worker/query');
`;

/**
 * Runs `check` after `ALL_IMPORTS` in a fresh process (this one has loaded everything the other
 * tests use) and returns what it printed last, parsed.
 */
function afterImports(check: string): unknown {
  const script = `${ALL_IMPORTS}\n${check}`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: import.meta.dirname, encoding: 'utf8' });
  return JSON.parse(output.trim().split('\n').at(-1) ?? '');
}

describe('what `all` loads', () => {
  // ioredis and BullMQ are 21 MB of idle RSS (docs/performance.md): their code sits behind the
  // packages' `/redis` entry points.
  it('should load no ioredis or BullMQ without Redis', () => {
    const loaded = afterImports(`
      const { createRequire } = await import('node:module');
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify(['ioredis', 'bullmq'].map((name) => loaded.filter((path) => path.includes('/node_modules/' + name + '/')).length)));
    `);
    expect(loaded).toEqual([0, 0]);
  }, 30_000);

  // An ESM import of node:http loads it (docs/performance.md, "Memory at rest"); nothing here uses fetch.
  it("should not load Node's bundled undici", () => {
    const loaded = afterImports(`console.log(JSON.stringify(process.moduleLoadList.filter((name) => name.includes('deps/undici'))));`);
    expect(loaded).toEqual([]);
  }, 30_000);

  // Its index loads fetch, WebSocket, caches and mocks besides (libs/http-client).
  it("should load undici's dispatchers without its index", () => {
    const loaded = afterImports(`
      const { createRequire } = await import('node:module');
      const require = createRequire(import.meta.url);
      const loaded = Object.keys(require.cache).filter((path) => path.includes('/node_modules/undici/'));
      console.log(JSON.stringify({ index: loaded.includes(require.resolve('undici')), pool: loaded.some((path) => path.endsWith('/lib/dispatcher/pool.js')) }));
    `);
    expect(loaded).toEqual({ index: false, pool: true });
  }, 30_000);
});
