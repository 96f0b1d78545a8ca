import { redisTest } from '@switchyard/testkit';
import { Redis } from 'ioredis';
import { describe, expect, onTestFinished } from 'vitest';
import { createRedisUsageSink } from './redis-usage-sink.ts';
import { decodeStagedBatch, stagedUsageKeys } from './staged-usage.ts';
import { usageEvent } from './test-events.ts';

/** What the sink staged, one array of events per batch, oldest first, read as a worker's mover reads it. */
async function stagedBatches(redisUrl: string, queueName: string): Promise<unknown[][]> {
  const redis = new Redis(redisUrl);
  try {
    return (await redis.lrange(stagedUsageKeys(queueName).list, 0, -1)).map((entry) => decodeStagedBatch(entry) ?? ['not a batch']);
  } finally {
    redis.disconnect();
  }
}

// How the buffering behaves, delivered this way or recorded: buffered-usage-sink.test.ts.
describe('redis usage sink', () => {
  redisTest('should stage the events of one turn as one batch', async ({ redisUrl }) => {
    const sink = createRedisUsageSink({ redisUrl, queueName: 'usage-one-turn' });
    onTestFinished(() => sink.close());
    const events = [usageEvent({ requestId: 'req:1', cachedTokens: 3 }), usageEvent({ requestId: 'req:2' })];
    await Promise.all(events.map((event) => sink.emit(event)));
    expect(await stagedBatches(redisUrl, 'usage-one-turn')).toEqual([events]);
  });

  redisTest('should stage a batch per round trip, in the order emitted', async ({ redisUrl }) => {
    const sink = createRedisUsageSink({ redisUrl, queueName: 'usage-batches' });
    onTestFinished(() => sink.close());
    const events = Array.from({ length: 450 }, () => usageEvent());
    await Promise.all(events.map((event) => sink.emit(event)));
    const batches = await stagedBatches(redisUrl, 'usage-batches');
    expect(batches.map((batch) => batch.length)).toEqual([200, 200, 50]);
    expect(batches.flat()).toEqual(events);
  });
});
