import { getFreePort, redisTest, startRedis } from '@switchyard/testkit';
import { Redis } from 'ioredis';
import { describe, expect, onTestFinished, vi } from 'vitest';
import type { BufferedUsageSink, BufferedUsageSinkOptions } from './buffered-usage-sink.ts';
import { createRecordingUsageSink } from './recording-usage-sink.ts';
import { createRedisUsageAggregator } from './redis-usage-aggregator.ts';
import { createRedisUsageSink } from './redis-usage-sink.ts';
import { decodeStagedBatch, stagedUsageKeys } from './staged-usage.ts';
import { TEST_YEAR, usageEvent } from './test-events.ts';
import type { UsageEvent } from './usage-event.ts';
import type { UsageDropReason } from './usage-sink.ts';

/** A sink on one of its deliveries, and how many events that delivery has made durable. */
interface Opened {
  sink: BufferedUsageSink;
  delivered(): Promise<number>;
}

interface Harness extends Opened {
  drops: Record<UsageDropReason, number>;
  errors: unknown[];
}

let queueCounter = 0;

/** The two deliveries: staged for the workers (a router), recorded in the aggregates (`all`). */
const DELIVERIES: Array<{ name: string; open: (redisUrl: string, options: BufferedUsageSinkOptions) => Opened }> = [
  {
    name: 'staged in Redis',
    open(redisUrl, options) {
      const queueName = `usage-test-${(queueCounter += 1)}`;
      const reader = new Redis(redisUrl, { maxRetriesPerRequest: null });
      reader.on('error', () => {});
      onTestFinished(() => {
        reader.disconnect();
      });
      const key = stagedUsageKeys(queueName).list;
      return {
        sink: createRedisUsageSink({ redisUrl, queueName, ...options }),
        delivered: async () => (await reader.lrange(key, 0, -1)).flatMap((entry) => decodeStagedBatch(entry) ?? []).length,
      };
    },
  },
  {
    name: 'recorded in the aggregates',
    open(redisUrl, options) {
      const aggregator = createRedisUsageAggregator({ url: redisUrl });
      // Registered first, so it runs after the sink's close (vitest runs these in reverse).
      onTestFinished(() => aggregator.close());
      const day = `${TEST_YEAR}-03-14`;
      return {
        sink: createRecordingUsageSink(aggregator, options),
        delivered: async () => (await aggregator.query({ tenantId: 'acme', from: day, to: day, groupBy: 'day' }))[0]?.requests ?? 0,
      };
    },
  },
];

describe.each(DELIVERIES)('buffered usage sink, $name', ({ open: openDelivery }) => {
  function open(redisUrl: string, options: Partial<BufferedUsageSinkOptions> = {}): Harness {
    const drops: Record<UsageDropReason, number> = { invalid: 0, buffer_full: 0, closed: 0 };
    const errors: unknown[] = [];
    const opened = openDelivery(redisUrl, {
      onDrop: (count, reason) => {
        drops[reason] += count;
      },
      onError: (error) => errors.push(error),
      ...options,
    });
    onTestFinished(() => opened.sink.close());
    return { ...opened, drops, errors };
  }

  async function waitForDelivered(harness: Opened, expected: number): Promise<void> {
    await vi.waitFor(async () => expect(await harness.delivered()).toBe(expected), { timeout: 20_000, interval: 50 });
  }

  redisTest('should settle what emit returns only once the event is delivered', async ({ redisUrl }) => {
    const harness = open(redisUrl);
    // More than one batch (200), so settling follows each batch, not just the first.
    const emitted = Array.from({ length: 450 }, () => harness.sink.emit(usageEvent()));
    await emitted[0];
    expect(await harness.delivered()).toBeGreaterThanOrEqual(200);
    await Promise.all(emitted);
    expect(await harness.delivered()).toBe(450);
  });

  redisTest('should not make emitters wait while the store is unreachable', async () => {
    const server = await startRedis();
    onTestFinished(() => server.stop());
    const harness = open(server.url, { sendTimeoutMs: 200 });
    await harness.sink.emit(usageEvent());
    await server.kill();
    // The first emit after the outage waits for its delivery to fail; it does, within the send timeout.
    await harness.sink.emit(usageEvent());
    expect(harness.errors.length).toBeGreaterThan(0);
    let settled = false;
    void harness.sink.emit(usageEvent()).then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(true);

    // The restarted server is empty: the two events buffered during the outage are all it will hold.
    await server.restart();
    await waitForDelivered(harness, 2);
  }, 30_000);

  redisTest('should deliver what is buffered before close resolves', async ({ redisUrl }) => {
    const harness = open(redisUrl, { batchSize: 50 });
    for (let index = 0; index < 500; index += 1) harness.sink.emit(usageEvent());
    await harness.sink.close();
    expect(await harness.delivered()).toBe(500);
    expect(harness.drops).toEqual({ invalid: 0, buffer_full: 0, closed: 0 });
  });

  redisTest('should drop, count and report what it cannot take, without throwing', async ({ redisUrl }) => {
    const { sink, drops, errors, delivered } = open(redisUrl);
    sink.emit({ ...usageEvent(), inputTokens: -5 });
    sink.emit({ ...usageEvent(), inputTokens: -6 });
    sink.emit({ requestId: 'only-an-id' } as UsageEvent);
    expect(drops.invalid).toBe(3);
    // The same message is reported once per interval: two distinct ones here.
    expect(errors).toHaveLength(2);
    await sink.close();
    sink.emit(usageEvent());
    expect(drops.closed).toBe(1);
    expect(await delivered()).toBe(0);
  });

  redisTest('should survive callbacks that throw', async ({ redisUrl }) => {
    const { sink } = open(redisUrl, {
      onDrop: () => {
        throw new Error('metrics broke');
      },
      onError: () => {
        throw new Error('logger broke');
      },
    });
    expect(() => sink.emit({ ...usageEvent(), status: 1 })).not.toThrow();
  });

  redisTest('should neither throw nor wait while Redis is down, and deliver the buffer once it is back', async () => {
    const server = await startRedis();
    onTestFinished(() => server.stop());
    const harness = open(server.url, { maxBufferedEvents: 50, sendTimeoutMs: 200 });
    const { sink, drops, errors } = harness;
    sink.emit(usageEvent());
    await waitForDelivered(harness, 1);
    await server.kill();

    const started = performance.now();
    for (let index = 0; index < 100; index += 1) sink.emit(usageEvent());
    const elapsedMs = performance.now() - started;
    expect(elapsedMs).toBeLessThan(50);
    expect(drops.buffer_full).toBe(50);
    expect(sink.bufferedEvents).toBe(50);
    await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0), { timeout: 5_000 });

    // The restarted server is empty: the 50 buffered events are all it will hold. A delivery
    // given up on during the outage may still land (the aggregator's connection queues it), and
    // the buffer is then delivered again: counted once.
    await server.restart();
    await vi.waitFor(() => expect(sink.bufferedEvents).toBe(0), { timeout: 20_000, interval: 50 });
    expect(await harness.delivered()).toBe(50);
  }, 30_000);

  redisTest('should close in bounded time when Redis never answered, counting what it gives up', async () => {
    const { sink, drops } = open(`redis://127.0.0.1:${await getFreePort()}`, { sendTimeoutMs: 100, closeTimeoutMs: 500 });
    const started = performance.now();
    for (let index = 0; index < 10; index += 1) sink.emit(usageEvent());
    expect(performance.now() - started).toBeLessThan(50);
    await sink.close();
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(drops.closed).toBe(10);
  });
});
