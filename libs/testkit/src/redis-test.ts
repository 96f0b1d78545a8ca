import { test } from 'vitest';
import type { RedisServer } from './redis-server.ts';
import { sendRedisCommand } from './send-redis-command.ts';
import { startRedis } from './start-redis.ts';

/**
 * `redisTest('should …', async ({ redisUrl }) => …)`: one Redis per test file, flushed before
 * each test so tests stay independent without paying a server start each.
 * Outage tests that kill or restart a server start their own with `startRedis()` instead,
 * so they cannot disturb the other tests of the file.
 */
export const redisTest = test
  // eslint-disable-next-line no-empty-pattern -- vitest reads fixture dependencies from this pattern; there are none
  .extend('redisServer', { scope: 'file' }, async ({}, { onCleanup }): Promise<RedisServer> => {
    const server = await startRedis();
    onCleanup(() => server.stop());
    return server;
  })
  .extend('redisUrl', async ({ redisServer }) => {
    const reply = await sendRedisCommand(redisServer.url, ['FLUSHALL']);
    if (reply !== '+OK') throw new Error(`FLUSHALL before the test failed: ${reply}`);
    return redisServer.url;
  });
