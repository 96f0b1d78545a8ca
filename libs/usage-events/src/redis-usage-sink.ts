import { Redis } from 'ioredis';
import { createBufferedUsageSink, withTimeout, type BufferedUsageSink, type BufferedUsageSinkOptions } from './buffered-usage-sink.ts';
import { encodeStagedBatch, stagedUsageKeys } from './staged-usage.ts';
import { USAGE_QUEUE_NAME } from './usage-event.ts';

export interface RedisUsageSinkOptions extends BufferedUsageSinkOptions {
  redisUrl: string;
  queueName?: string;
}

export type RedisUsageSink = BufferedUsageSink;

const READY = Promise.resolve();

/**
 * The producer side of the usage queue (style-anchors §5): the buffer is staged in batches, one
 * `RPUSH` of a `UsageBatch` each, which the workers move into BullMQ jobs of many batches
 * (staged-usage-mover.ts). A BullMQ job costs its producer and its consumer the same whatever it
 * carries, and a router's batch holds only what ended during one round trip (docs/performance.md,
 * "Redis mode: usage staged"). While Redis is unreachable sends fail fast
 * (`enableOfflineQueue: false`) and the buffer waits for the retry.
 */
export function createRedisUsageSink(options: RedisUsageSinkOptions): RedisUsageSink {
  const stagedKey = stagedUsageKeys(options.queueName ?? USAGE_QUEUE_NAME).list;
  return createBufferedUsageSink(options, ({ report, sendTimeoutMs, closeTimeoutMs }) => {
    const redis = new Redis(options.redisUrl, {
      // Fail at once while disconnected instead of queueing commands in memory without bound.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: sendTimeoutMs,
      retryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000),
    });
    redis.on('error', report);
    return {
      deliver: (events) => whenReady(redis, sendTimeoutMs).then(() => redis.rpush(stagedKey, encodeStagedBatch(events))),
      async close() {
        try {
          await withTimeout(redis.quit(), closeTimeoutMs, 'usage queue close timed out');
        } catch (error) {
          report(error);
          redis.disconnect();
        }
      },
    };
  });
}

/**
 * Resolves once the connection is ready, at once when it is. Without an offline queue a command
 * sent while connecting fails; the first sends of a starting process wait for the connection
 * instead, up to the send timeout.
 */
function whenReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return READY;
  return new Promise<void>((resolve, reject) => {
    const onReady = (): void => {
      clearTimeout(timer);
      resolve();
    };
    // The listener goes with the timeout: an outage must not pile up one per retry.
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      reject(new Error('usage queue unreachable: not connected'));
    }, timeoutMs);
    redis.once('ready', onReady);
  });
}
