import { Redis } from 'ioredis';

/**
 * A Redis client for request-path state: bounded command time, no offline queue (fail fast
 * while disconnected instead of piling up), the first connect awaited by `ready`.
 */
export function connectRedis(url: string, timeoutMs = 1000): { redis: Redis; ready: Promise<void> } {
  const redis = new Redis(url, { commandTimeout: timeoutMs, maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true });
  // Connection errors surface as failed commands; without a listener ioredis would print them.
  redis.on('error', () => {});
  return { redis, ready: redis.connect().catch(() => {}) };
}
