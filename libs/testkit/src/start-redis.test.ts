import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { RedisServer } from './redis-server.ts';
import { sendRedisCommand } from './send-redis-command.ts';
import { hasContainerRuntime, startRedis } from './start-redis.ts';

describe('startRedis', () => {
  let server: RedisServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('should start a server a real client can use', async () => {
    server = await startRedis();
    const client = new Redis(server.url);
    try {
      await client.set('greeting', 'hello');
      expect(await client.get('greeting')).toBe('hello');
    } finally {
      client.disconnect();
    }
  });

  it('should refuse connections after kill and answer on the same url after restart', async () => {
    server = await startRedis();
    const { url } = server;
    await server.kill();
    await expect(sendRedisCommand(url, ['PING'])).rejects.toThrow();
    await server.restart();
    expect(server.url).toBe(url);
    expect(await sendRedisCommand(url, ['PING'])).toBe('+PONG');
  });

  it('should come back empty after restarting a running server', async () => {
    server = await startRedis();
    expect(await sendRedisCommand(server.url, ['SET', 'left-over', '1'])).toBe('+OK');
    await server.restart();
    expect(await sendRedisCommand(server.url, ['EXISTS', 'left-over'])).toBe(':0');
  });

  it('should tolerate stop being called twice', async () => {
    server = await startRedis();
    await server.stop();
    await server.stop();
    await expect(sendRedisCommand(server.url, ['PING'])).rejects.toThrow();
  });
});

describe('hasContainerRuntime', () => {
  it('should answer quickly and cache the answer', async () => {
    const started = Date.now();
    const first = await hasContainerRuntime();
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(hasContainerRuntime()).toBe(hasContainerRuntime());
    expect(await hasContainerRuntime()).toBe(first);
  });
});
