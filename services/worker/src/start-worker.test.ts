import { redisTest } from '@switchyard/testkit';
import { createRedisUsageAggregator, createRedisUsageSink } from '@switchyard/usage-events/redis';
import {
  stagedUsageKeys,
  USAGE_BATCH_JOB_NAME,
  USAGE_JOB_NAME,
  USAGE_JOB_OPTIONS,
  type UsageAggregator,
  type UsageEvent,
  type UsageGroupBy,
} from '@switchyard/usage-events';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, onTestFinished, vi } from 'vitest';
import { startWorker, type StartWorkerOptions, type UsageWorker } from './start-worker.ts';
import { at, expectedRows, PRICES, recordingLogger, TEST_YEAR, usageEvent } from './test-support.ts';

const Y = TEST_YEAR;
const GROUPINGS: UsageGroupBy[] = ['day', 'month', 'model', 'key'];
let queueCounter = 0;

function setUp(redisUrl: string, batchSize?: number) {
  const queueName = `usage-worker-test-${(queueCounter += 1)}`;
  const aggregator = createRedisUsageAggregator({ url: redisUrl });
  const sink = createRedisUsageSink({ redisUrl, queueName, ...(batchSize === undefined ? {} : { batchSize }) });
  const queue = new Queue(queueName, { connection: { url: redisUrl } });
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const logger = recordingLogger();
  const workers: UsageWorker[] = [];
  onTestFinished(async () => {
    await sink.close();
    for (const worker of workers) await worker.close();
    await queue.close();
    await aggregator.close();
    redis.disconnect();
  });
  const start = (overrides: Partial<StartWorkerOptions> = {}): UsageWorker => {
    const worker = startWorker({ redisUrl, queueName, aggregator, prices: PRICES, logger, ...overrides });
    workers.push(worker);
    return worker;
  };
  const query = (tenantId: string, groupBy: UsageGroupBy) => aggregator.query({ tenantId, from: `${Y}-01-01`, to: `${Y}-12-31`, groupBy });
  const requests = async (tenantId: string) => (await query(tenantId, 'month')).reduce((sum, row) => sum + row.requests, 0);
  const results = async () => (await queue.getJobs(['completed'])).map((job) => job.returnvalue as unknown);
  /** Batches routers staged that no worker has moved into a job yet. */
  const staged = () => redis.llen(stagedUsageKeys(queueName).list);
  /** Until nothing is staged, waiting, delayed or running. */
  const drained = () =>
    vi.waitFor(
      async () => {
        // Staged first: a batch moves from the list into a job, so read the other way round one
        // could be counted in neither (usage-pipeline.test.ts met it in CI).
        const stagedBatches = await staged();
        const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
        expect(stagedBatches + Object.values(counts).reduce((sum, count) => sum + count, 0)).toBe(0);
      },
      { timeout: 30_000, interval: 25 },
    );
  return { queueName, aggregator, sink, queue, logger, start, staged, query, requests, results, drained };
}

/** The aggregator, slowed down so a close can land while jobs are in flight. */
function slowed(aggregator: UsageAggregator, delayMs: number): UsageAggregator {
  return { ...aggregator, record: async (events) => (await sleep(delayMs), aggregator.record(events)) };
}

describe('usage worker', () => {
  redisTest('should aggregate what the router emits', async ({ redisUrl }) => {
    const { sink, start, query, drained } = setUp(redisUrl);
    start();
    const events = [
      usageEvent({ model: 'smart', inputTokens: 1_200, outputTokens: 300, cachedTokens: 1_000, reasoningTokens: 100, stream: true }),
      usageEvent({ model: 'fast', inputTokens: 10, outputTokens: 0, status: 429 }),
      usageEvent({ keyId: 'web', occurredAt: at(`${Y}-03-15`) }),
    ];
    for (const event of events) sink.emit(event);
    await sink.close();
    await drained();
    for (const groupBy of GROUPINGS) expect(await query('acme', groupBy)).toEqual(expectedRows(events, 'acme', groupBy));
  });

  redisTest('should count an event emitted twice once', async ({ redisUrl }) => {
    const { sink, start, requests, results, drained } = setUp(redisUrl);
    start();
    const event = usageEvent();
    // Awaited until staged: otherwise the sink may still hold it when the queue reads drained,
    // and all three copies go out in one job.
    await sink.emit(event);
    await drained();
    sink.emit(event);
    sink.emit(structuredClone(event));
    await sink.close();
    await drained();
    expect(await requests('acme')).toBe(1);
    expect(await results()).toEqual(expect.arrayContaining([{ counted: 1, repeated: 0 }, { counted: 0, repeated: 2 }]));
  });

  redisTest('should count a request delivered in two jobs once, a batch and the single event of an older router', async ({ redisUrl }) => {
    const { queue, start, requests, results, drained } = setUp(redisUrl);
    const [event, other] = [usageEvent(), usageEvent()];
    // At-least-once: the same request arrives again under another job id, in the shape routers
    // sent before batching (a rolling deploy has both on the queue).
    await queue.add(USAGE_BATCH_JOB_NAME, { events: [event, other] }, { ...USAGE_JOB_OPTIONS, jobId: 'batch-1' });
    await queue.add(USAGE_JOB_NAME, event, { ...USAGE_JOB_OPTIONS, jobId: 'redelivered-1' });
    start({ concurrency: 1 });
    await drained();
    expect(await requests('acme')).toBe(2);
    expect(await results()).toEqual(expect.arrayContaining([{ counted: 2, repeated: 0 }, { counted: 0, repeated: 1 }]));
  });

  redisTest(
    'should count 1,000 events exactly across a worker closed midway and its replacement',
    async ({ redisUrl }) => {
      // Small batches, so that the close lands with jobs both done and waiting.
      const { sink, queue, aggregator, start, staged, query, requests, drained, logger } = setUp(redisUrl, 10);
      const days = [`${Y}-04-29`, `${Y}-04-30`, `${Y}-05-01`];
      const events: UsageEvent[] = Array.from({ length: 1_000 }, (_, index) =>
        usageEvent({
          tenantId: index % 5 === 0 ? 'globex' : 'acme',
          keyId: ['ci', 'web', 'batch'][index % 3] as string,
          model: index % 7 < 3 ? 'smart' : 'fast',
          stream: index % 2 === 0,
          status: index % 23 === 0 ? 500 : 200,
          inputTokens: 50 + ((index * 37) % 2_000),
          outputTokens: (index * 11) % 700,
          ...(index % 4 === 0 ? { cachedTokens: 25 } : {}),
          ...(index % 6 === 0 ? { reasoningTokens: (index * 3) % 90 } : {}),
          ...(index % 50 === 0 ? { costMicros: 1_000 + index } : {}),
          occurredAt: at(days[index % 3] as string, index % 24),
        }),
      );
      expect(events.filter((event) => event.stream)).toHaveLength(500);
      for (const event of events) sink.emit(event);
      await sink.close();
      expect(await staged()).toBe(100);

      // Jobs as small as the batches, so that the close lands with jobs both done and waiting.
      const first = start({ aggregator: slowed(aggregator, 10), concurrency: 4, mover: { maxEventsPerJob: 10 } });
      await vi.waitFor(async () => expect((await requests('acme')) + (await requests('globex'))).toBeGreaterThanOrEqual(300), {
        timeout: 30_000,
        interval: 10,
      });
      await first.close(); // what SIGTERM does: stop taking jobs, finish the ones in flight
      const countedAtClose = (await requests('acme')) + (await requests('globex'));
      expect(countedAtClose).toBeLessThan(1_000);
      expect(await queue.getJobCountByTypes('active')).toBe(0);
      await sleep(100);
      expect((await requests('acme')) + (await requests('globex'))).toBe(countedAtClose);

      // At-least-once on top: some requests come again under new job ids.
      for (const event of events.slice(0, 50)) await queue.add(USAGE_JOB_NAME, event, { jobId: `again-${event.requestId}` });

      start({ concurrency: 16 });
      await drained();
      expect((await requests('acme')) + (await requests('globex'))).toBe(1_000);
      for (const tenantId of ['acme', 'globex']) {
        for (const groupBy of GROUPINGS) expect(await query(tenantId, groupBy)).toEqual(expectedRows(events, tenantId, groupBy));
      }
      expect(await queue.getJobCountByTypes('failed')).toBe(0);
      expect(logger.lines.filter((line) => line.level !== 'info')).toEqual([]);
    },
    60_000,
  );

  redisTest('should fail an invalid job once, without retries', async ({ redisUrl }) => {
    const { queue, start, drained, logger } = setUp(redisUrl);
    start();
    await queue.add(USAGE_JOB_NAME, { requestId: 'half-an-event' }, { ...USAGE_JOB_OPTIONS, jobId: 'bad-1' });
    await drained();
    const job = await queue.getJob('bad-1');
    expect(await job?.getState()).toBe('failed');
    expect(job?.attemptsMade).toBe(1);
    expect(logger.lines.map((line) => line.message)).toEqual(['invalid usage event dropped']);
  });

  redisTest('should count the valid events of a batch with an invalid one, then fail it once', async ({ redisUrl }) => {
    const { queue, start, requests, drained, logger } = setUp(redisUrl);
    start();
    const events = [usageEvent(), { ...usageEvent(), outputTokens: -1 }, usageEvent()];
    await queue.add(USAGE_BATCH_JOB_NAME, { events }, { ...USAGE_JOB_OPTIONS, jobId: 'bad-batch' });
    await drained();
    const job = await queue.getJob('bad-batch');
    expect(await job?.getState()).toBe('failed');
    expect(job?.attemptsMade).toBe(1);
    expect(job?.failedReason).toMatch(/event 1: .*outputTokens/s);
    expect(await requests('acme')).toBe(2);
    expect(logger.lines).toEqual([
      expect.objectContaining({ message: 'invalid usage event dropped', object: expect.objectContaining({ jobId: 'bad-batch', counted: 2 }) }),
    ]);
  });

  redisTest('should retry a job whose recording failed, and count it once', async ({ redisUrl }) => {
    const { queue, aggregator, start, requests, drained, logger } = setUp(redisUrl);
    let failures = 1;
    start({
      aggregator: {
        ...aggregator,
        record: async (events) => {
          const counted = await aggregator.record(events);
          // The write landed but the reply was lost: the retry must not count again.
          if (failures-- > 0) throw new Error('connection reset');
          return counted;
        },
      },
    });
    await queue.add(USAGE_JOB_NAME, usageEvent(), { ...USAGE_JOB_OPTIONS, backoff: { type: 'fixed', delay: 50 } });
    await drained();
    expect(await requests('acme')).toBe(1);
    expect(logger.lines).toEqual([expect.objectContaining({ level: 'warn', message: 'usage job failed, will retry' })]);
  });
});
