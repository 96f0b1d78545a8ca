import { getFreePort, redisTest, startRedis } from '@switchyard/testkit';
import { Redis } from 'ioredis';
import { describe, expect, onTestFinished, vi } from 'vitest';
import { createRedisUsageSink, type RedisUsageSink, type RedisUsageSinkOptions } from './redis-usage-sink.ts';
import { decodeStagedBatch, stagedUsageKeys } from './staged-usage.ts';
import { usageEvent } from './test-events.ts';
import type { UsageEvent } from './usage-event.ts';
import type { UsageDropReason } from './usage-sink.ts';

interface Harness {
  sink: RedisUsageSink;
  staged: Staged;
  drops: Record<UsageDropReason, number>;
  errors: unknown[];
}

let queueCounter = 0;

/** What the sink staged, read as a worker's mover reads it. */
class Staged {
  readonly #redis: Redis;
  readonly #key: string;

  constructor(redisUrl: string, queueName: string) {
    this.#redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
    this.#redis.on('error', () => {});
    this.#key = stagedUsageKeys(queueName).list;
  }

  /** The staged batches' events, one array per batch, oldest first. */
  async batches(): Promise<unknown[][]> {
    return (await this.#redis.lrange(this.#key, 0, -1)).map((entry) => decodeStagedBatch(entry) ?? ['not a batch']);
  }

  async events(): Promise<unknown[]> {
    return (await this.batches()).flat();
  }

  close(): void {
    this.#redis.disconnect();
  }
}

function open(redisUrl: string, options: Partial<RedisUsageSinkOptions> = {}): Harness {
  const queueName = `usage-test-${(queueCounter += 1)}`;
  const drops: Record<UsageDropReason, number> = { invalid: 0, buffer_full: 0, closed: 0 };
  const errors: unknown[] = [];
  const sink = createRedisUsageSink({
    redisUrl,
    queueName,
    onDrop: (count, reason) => {
      drops[reason] += count;
    },
    onError: (error) => errors.push(error),
    ...options,
  });
  const staged = new Staged(redisUrl, queueName);
  onTestFinished(async () => {
    await sink.close();
    staged.close();
  });
  return { sink, staged, drops, errors };
}

async function waitForEvents(staged: Staged, expected: number): Promise<void> {
  await vi.waitFor(async () => expect(await staged.events()).toHaveLength(expected), { timeout: 20_000, interval: 50 });
}

describe('redis usage sink', () => {
  redisTest('should stage the events of one turn as one batch', async ({ redisUrl }) => {
    const { sink, staged } = open(redisUrl);
    const events = [usageEvent({ requestId: 'req:1', cachedTokens: 3 }), usageEvent({ requestId: 'req:2' })];
    for (const event of events) sink.emit(event);
    await waitForEvents(staged, 2);
    expect(await staged.batches()).toEqual([events]);
  });

  redisTest('should settle what emit returns only once the event is staged, a batch per round trip', async ({ redisUrl }) => {
    const { sink, staged } = open(redisUrl);
    // More than one batch (200), so settling follows each batch, not just the first.
    const events = Array.from({ length: 450 }, () => usageEvent());
    await Promise.all(events.map((event) => sink.emit(event)));
    expect((await staged.batches()).map((batch) => batch.length)).toEqual([200, 200, 50]);
    expect(await staged.events()).toEqual(events);
  });

  redisTest('should not make emitters wait while the queue is unreachable', async () => {
    const server = await startRedis();
    onTestFinished(() => server.stop());
    const { sink, staged, errors } = open(server.url, { sendTimeoutMs: 200 });
    await sink.emit(usageEvent());
    await server.kill();
    // The first emit after the outage waits for its send to fail; it does, within the send timeout.
    await sink.emit(usageEvent());
    expect(errors.length).toBeGreaterThan(0);
    let settled = false;
    void sink.emit(usageEvent()).then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(true);

    await server.restart();
    await waitForEvents(staged, 2);
  }, 30_000);

  redisTest('should deliver what is buffered before close resolves', async ({ redisUrl }) => {
    const { sink, staged, drops } = open(redisUrl, { batchSize: 50 });
    for (let index = 0; index < 500; index += 1) sink.emit(usageEvent());
    await sink.close();
    expect(await staged.batches()).toHaveLength(10);
    expect(await staged.events()).toHaveLength(500);
    expect(drops).toEqual({ invalid: 0, buffer_full: 0, closed: 0 });
  });

  redisTest('should drop, count and report what it cannot take, without throwing', async ({ redisUrl }) => {
    const { sink, staged, drops, errors } = open(redisUrl);
    sink.emit({ ...usageEvent(), inputTokens: -5 });
    sink.emit({ ...usageEvent(), inputTokens: -6 });
    sink.emit({ requestId: 'only-an-id' } as UsageEvent);
    expect(drops.invalid).toBe(3);
    // The same message is reported once per interval: two distinct ones here.
    expect(errors).toHaveLength(2);
    await sink.close();
    sink.emit(usageEvent());
    expect(drops.closed).toBe(1);
    expect(await staged.batches()).toEqual([]);
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
    const { sink, staged, drops, errors } = open(server.url, { maxBufferedEvents: 50, sendTimeoutMs: 200 });
    sink.emit(usageEvent());
    await waitForEvents(staged, 1);
    await server.kill();

    const started = performance.now();
    for (let index = 0; index < 100; index += 1) sink.emit(usageEvent());
    const elapsedMs = performance.now() - started;
    expect(elapsedMs).toBeLessThan(50);
    expect(drops.buffer_full).toBe(50);
    expect(sink.bufferedEvents).toBe(50);
    await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0), { timeout: 5_000 });

    // The restarted server is empty: the 50 buffered events are all it will hold.
    await server.restart();
    await waitForEvents(staged, 50);
    expect(sink.bufferedEvents).toBe(0);
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
