import { redisTest } from '@switchyard/testkit';
import { Redis } from 'ioredis';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { bindScript } from './bind-script.ts';
import { loadScript } from './load-script.ts';

const directory = mkdtempSync(join(tmpdir(), 'bind-script-'));
mkdirSync(join(directory, 'includes'));
writeFileSync(join(directory, 'includes', 'add.lua'), "local function add(key, amount) return redis.call('INCRBY', key, amount) end\n");
writeFileSync(join(directory, 'bump-n.lua'), '--- @include "add"\nlocal function bump(KEYS, ARGV)\n  return add(KEYS[1], ARGV[1])\nend\n\nreturn bump(KEYS, ARGV)\n');
writeFileSync(join(directory, 'plain-n.lua'), 'return 1\n');
const BUMP = loadScript(directory, 'bump-n.lua');

function connect(url: string, options: { lazyConnect?: boolean; enableOfflineQueue?: boolean } = {}): Redis {
  const redis = new Redis(url, options);
  redis.on('error', () => {});
  onTestFinished(() => {
    redis.disconnect();
  });
  return redis;
}

/** A connection to the test's Redis, with no library loaded and its command counts at zero (FLUSHALL keeps both). */
async function freshAdmin(url: string): Promise<Redis> {
  const admin = connect(url);
  await admin.function('FLUSH');
  await admin.config('RESETSTAT');
  return admin;
}

/** A connection as a user allowed every command but `command`. */
async function connectWithout(admin: Redis, redisUrl: string, command: string): Promise<Redis> {
  const user = `no-${command}`;
  await admin.acl('SETUSER', user, 'on', '>secret', '~*', '&*', '+@all', `-${command}`);
  const url = new URL(redisUrl);
  url.username = user;
  url.password = 'secret';
  return connect(url.href);
}

/** Calls of each command since the last RESETSTAT, from `INFO commandstats`. */
async function calls(admin: Redis): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const match of (await admin.info('commandstats')).matchAll(/cmdstat_([\w|]+):calls=(\d+)/g)) counts[match[1] as string] = Number(match[2]);
  return counts;
}

describe('bindScript', () => {
  it('should take only a script that ends in its entry', () => {
    expect(() => bindScript(new Redis({ lazyConnect: true }), loadScript(directory, 'plain-n.lua'))).toThrow(/return <entry>\(KEYS, ARGV\)/);
  });

  redisTest('should load the script as a Function at the first call and call it from then on', async ({ redisUrl }) => {
    const admin = await freshAdmin(redisUrl);
    const bump = bindScript<number>(connect(redisUrl), BUMP);
    expect(await bump(1, ['counter', '2'])).toBe(2);
    expect(await bump(1, ['counter', '3'])).toBe(5);
    const [library] = (await admin.function('LIST', 'LIBRARYNAME', BUMP.library?.name as string)) as unknown[][];
    expect(library).toContain(BUMP.library?.name);
    expect(await calls(admin)).toMatchObject({ 'function|load': 1, fcall: 2 });
    expect(await calls(admin)).not.toHaveProperty('evalsha');
  });

  redisTest('should load it again after Redis lost it', async ({ redisUrl }) => {
    const admin = await freshAdmin(redisUrl);
    const bump = bindScript<number>(connect(redisUrl), BUMP);
    expect(await bump(1, ['counter', '1'])).toBe(1);
    await admin.function('FLUSH');
    expect(await bump(1, ['counter', '1'])).toBe(2);
    expect(await bump(1, ['counter', '1'])).toBe(3);
    expect(await calls(admin)).toMatchObject({ 'function|load': 2, fcall: 4 });
  });

  redisTest('should take a library another process loaded', async ({ redisUrl }) => {
    const admin = await freshAdmin(redisUrl);
    await admin.function('LOAD', BUMP.library?.code as string);
    expect(await bindScript<number>(connect(redisUrl), BUMP)(1, ['counter', '4'])).toBe(4);
  });

  redisTest('should send EVALSHA where the server refuses Functions, and the script after Redis lost it', async ({ redisUrl }) => {
    const admin = await freshAdmin(redisUrl);
    const bump = bindScript<number>(await connectWithout(admin, redisUrl, 'function'), BUMP);
    expect(await bump(1, ['counter', '2'])).toBe(2);
    await admin.script('FLUSH');
    expect(await bump(1, ['counter', '2'])).toBe(4);
    expect(await admin.function('LIST')).toEqual([]);
    expect(await calls(admin)).toMatchObject({ evalsha: 2, eval: 2 });
  });

  redisTest('should send EVALSHA for a user that may load Functions but not call them', async ({ redisUrl }) => {
    const admin = await freshAdmin(redisUrl);
    const bump = bindScript<number>(await connectWithout(admin, redisUrl, 'fcall'), BUMP);
    expect(await bump(1, ['counter', '2'])).toBe(2);
    expect(await bump(1, ['counter', '2'])).toBe(4);
    expect(await calls(admin)).toMatchObject({ 'function|load': 1, evalsha: 2 });
  });

  redisTest('should not give up Functions for a server out of memory for a while', async ({ redisUrl }) => {
    const admin = await freshAdmin(redisUrl);
    await admin.config('SET', 'maxmemory', '1');
    onTestFinished(() => admin.config('SET', 'maxmemory', '0').then(() => undefined));
    const bump = bindScript<number>(connect(redisUrl), BUMP);
    await expect(bump(1, ['counter', '1'])).rejects.toThrow(/^OOM/);
    await admin.config('SET', 'maxmemory', '0');
    expect(await bump(1, ['counter', '1'])).toBe(1);
    expect(await calls(admin)).toMatchObject({ 'function|load': 1, fcall: 1 });
    expect(await calls(admin)).not.toHaveProperty('evalsha');
  });

  redisTest('should fail a call that found no connection, and load at the next', async ({ redisUrl }) => {
    const admin = await freshAdmin(redisUrl);
    const redis = connect(redisUrl, { lazyConnect: true, enableOfflineQueue: false });
    const bump = bindScript<number>(redis, BUMP);
    await expect(bump(1, ['counter', '1'])).rejects.toThrow(/enableOfflineQueue/);
    await once(redis, 'ready');
    expect(await bump(1, ['counter', '1'])).toBe(1);
    expect(await calls(admin)).toMatchObject({ 'function|load': 1, fcall: 1 });
  });
});
