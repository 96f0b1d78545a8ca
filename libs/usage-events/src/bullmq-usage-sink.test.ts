import { getFreePort, redisTest, startRedis } from '@switchyard/testkit';
import { Queue } from 'bullmq';
import { describe, expect, onTestFinished, vi } from 'vitest';
import { createBullmqUsageSink, type BullmqUsageSink, type BullmqUsageSinkOptions } from './bullmq-usage-sink.ts';
import { usageEvent } from './test-events.ts';
import { USAGE_BATCH_JOB_NAME, usageBatchJobId, type UsageBatch, type UsageEvent } from './usage-event.ts';
import type { UsageDropReason } from './usage-sink.ts';

interface Harness {
  sink: BullmqUsageSink;
  queue: Queue;
  drops: Record<UsageDropReason, number>;
  errors: unknown[];
}

let queueCounter = 0;

function open(redisUrl: string, options: Partial<BullmqUsageSinkOptions> = {}): Harness {
  const queueName = `usage-test-${(queueCounter += 1)}`;
  const drops: Record<UsageDropReason, number> = { invalid: 0, buffer_full: 0, closed: 0 };
  const errors: unknown[] = [];
  const sink = createBullmqUsageSink({
    redisUrl,
    queueName,
    onDrop: (count, reason) => {
      drops[reason] += count;
    },
    onError: (error) => errors.push(error),
    ...options,
  });
  const queue = new Queue(queueName, { connection: { url: redisUrl } });
  queue.on('error', () => {});
  onTestFinished(async () => {
    await sink.close();
    await queue.close();
  });
  return { sink, queue, drops, errors };
}

/** The events of the waiting jobs, oldest job first. */
async function waitingEvents(queue: Queue): Promise<UsageEvent[]> {
  const jobs = await queue.getJobs(['waiting'], 0, -1, true);
  return jobs.flatMap((job) => (job.data as UsageBatch).events);
}

async function waitForEvents(queue: Queue, expected: number): Promise<void> {
  await vi.waitFor(async () => expect(await waitingEvents(queue)).toHaveLength(expected), { timeout: 20_000, interval: 50 });
}

describe('bullmq usage sink', () => {
  redisTest('should put the events of one turn on the queue as one job named after their requests', async ({ redisUrl }) => {
    const { sink, queue } = open(redisUrl);
    const events = [usageEvent({ requestId: 'req:1', cachedTokens: 3 }), usageEvent({ requestId: 'req:2' })];
    for (const event of events) sink.emit(event);
    await waitForEvents(queue, 2);
    const job = await queue.getJob(usageBatchJobId(events));
    expect(job?.name).toBe(USAGE_BATCH_JOB_NAME);
    expect(job?.data).toEqual({ events });
    expect(job?.opts).toMatchObject({ attempts: 10, removeOnComplete: { age: 3_600 }, removeOnFail: { age: 604_800 } });
  });

  redisTest('should settle what emit returns only once the event is on the queue, a job per batch', async ({ redisUrl }) => {
    const { sink, queue } = open(redisUrl);
    // More than one batch (200), so settling follows each batch, not just the first.
    const events = Array.from({ length: 450 }, () => usageEvent());
    await Promise.all(events.map((event) => sink.emit(event)));
    expect(await queue.getJobCountByTypes('waiting')).toBe(3);
    expect(await waitingEvents(queue)).toEqual(events);
  });

  redisTest('should not make emitters wait while the queue is unreachable', async () => {
    const server = await startRedis();
    onTestFinished(() => server.stop());
    const { sink, queue, errors } = open(server.url, { sendTimeoutMs: 200 });
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
    await waitForEvents(queue, 2);
  }, 30_000);

  redisTest('should make one job of a batch sent twice', async ({ redisUrl }) => {
    const { sink, queue } = open(redisUrl, { batchSize: 2 });
    const events = [usageEvent(), usageEvent()];
    for (const event of events) sink.emit(event);
    await waitForEvents(queue, 2);
    // The same batch again, as after a send that timed out but had landed.
    for (const event of events) sink.emit(event);
    sink.emit(usageEvent());
    await waitForEvents(queue, 3);
    expect(await queue.getJobCountByTypes('waiting')).toBe(2);
  });

  redisTest('should deliver what is buffered before close resolves', async ({ redisUrl }) => {
    const { sink, queue, drops } = open(redisUrl, { batchSize: 50 });
    for (let index = 0; index < 500; index += 1) sink.emit(usageEvent());
    await sink.close();
    expect(await queue.getJobCountByTypes('waiting')).toBe(10);
    expect(await waitingEvents(queue)).toHaveLength(500);
    expect(drops).toEqual({ invalid: 0, buffer_full: 0, closed: 0 });
  });

  redisTest('should drop, count and report what it cannot take, without throwing', async ({ redisUrl }) => {
    const { sink, queue, drops, errors } = open(redisUrl);
    sink.emit({ ...usageEvent(), inputTokens: -5 });
    sink.emit({ ...usageEvent(), inputTokens: -6 });
    sink.emit({ requestId: 'only-an-id' } as UsageEvent);
    expect(drops.invalid).toBe(3);
    // The same message is reported once per interval: two distinct ones here.
    expect(errors).toHaveLength(2);
    await sink.close();
    sink.emit(usageEvent());
    expect(drops.closed).toBe(1);
    expect(await queue.getJobCountByTypes('waiting')).toBe(0);
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
    const { sink, queue, drops, errors } = open(server.url, { maxBufferedEvents: 50, sendTimeoutMs: 200 });
    sink.emit(usageEvent());
    await waitForEvents(queue, 1);
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
    await waitForEvents(queue, 50);
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
