import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * What `all` loads without REDIS_URL must not pull in ioredis or BullMQ (21 MB of idle RSS,
 * docs/performance.md): their code sits behind the packages' `/redis` entry points. Checked in
 * a fresh process, since this one has loaded everything the other tests use.
 */
describe('imports without Redis', () => {
  it('should load no ioredis or BullMQ through the packages a Redis-less `all` imports', () => {
    const script = `
      await import('@switchyard/ratelimit');
      await import('@switchyard/usage-events');
      await import('@switchyard/router');
      await import('@switchyard/catalog');
      await import('@switchyard/ingress');
      await import('@switchyard/worker/query');
      const { createRequire } = await import('node:module');
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify(['ioredis', 'bullmq'].map((name) => loaded.filter((path) => path.includes('/node_modules/' + name + '/')).length)));
    `;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: import.meta.dirname, encoding: 'utf8' });
    expect(JSON.parse(output.trim().split('\n').at(-1) ?? '')).toEqual([0, 0]);
  }, 30_000);
});
