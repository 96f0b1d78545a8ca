import { join } from 'node:path';
import { loadScript } from '@switchyard/redis-scripts';
import { redisTest, startRedis } from '@switchyard/testkit';
import { encodeStagedBatch, stagedUsageKeys, USAGE_BATCH_JOB_NAME, usageBatchJobId, type UsageBatch, type UsageEvent } from '@switchyard/usage-events';
import { Redis } from 'ioredis';
import { describe, expect, onTestFinished, vi } from 'vitest';
import { EncodedDataQueue } from './encoded-data-queue.ts';
import { startStagedUsageMover, type StagedUsageMover, type StagedUsageMoverOptions } from './staged-usage-mover.ts';
import { recordingLogger, usageEvent } from './test-support.ts';

let queueCounter = 0;

function setUp(redisUrl: string) {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const queue = new EncodedDataQueue(`usage-mover-test-${(queueCounter += 1)}`, { connection: redis });
  const keys = stagedUsageKeys(queue.name);
  const logger = recordingLogger();
  const movers: StagedUsageMover[] = [];
  onTestFinished(async () => {
    for (const mover of movers) await mover.close();
    await queue.close();
    redis.disconnect();
  });
  const start = (options: Partial<StagedUsageMoverOptions> = {}) => {
    const mover = startStagedUsageMover({ redis, queue, logger, idleDelayMs: 10, ...options });
    movers.push(mover);
    return mover;
  };
  /** Stages batches as routers do. */
  const stage = async (...batches: UsageEvent[][]) => {
    for (const batch of batches) await redis.rpush(keys.list, encodeStagedBatch(batch));
  };
  const jobs = () => queue.getJobs(['waiting'], 0, -1, true);
  const movedAll = () => vi.waitFor(async () => expect(await redis.llen(keys.list)).toBe(0), { timeout: 10_000, interval: 20 });
  return { queue, keys, redis, logger, start, stage, jobs, movedAll };
}

const batchOf = (size: number) => Array.from({ length: size }, () => usageEvent());

describe('staged usage mover', () => {
  redisTest('should move staged batches into one job named after their requests', async ({ redisUrl }) => {
    const { start, stage, jobs, movedAll } = setUp(redisUrl);
    const batches = [batchOf(3), batchOf(1), batchOf(5)];
    await stage(...batches);
    start();
    await movedAll();
    const [job, ...others] = await jobs();
    expect(others).toEqual([]);
    const events = batches.flat();
    expect(job?.id).toBe(usageBatchJobId(Buffer.from(JSON.stringify({ events }))));
    expect(job?.name).toBe(USAGE_BATCH_JOB_NAME);
    expect(job?.data).toEqual({ events });
    expect(job?.opts).toMatchObject({ attempts: 10, removeOnComplete: { age: 3_600 }, removeOnFail: { age: 604_800 } });
  });

  redisTest('should carry batches staged by routers older than the count with the others', async ({ redisUrl }) => {
    const { redis, keys, start, stage, jobs, movedAll } = setUp(redisUrl);
    const [newer, older] = [batchOf(2), batchOf(3)];
    await stage(newer);
    await redis.rpush(keys.list, JSON.stringify({ events: older }));
    start();
    await movedAll();
    expect((await jobs()).map((job) => job.data)).toEqual([{ events: [...newer, ...older] }]);
  });

  redisTest('should keep jobs within their bound, whole batches each, a larger batch alone', async ({ redisUrl }) => {
    const { start, stage, jobs, movedAll } = setUp(redisUrl);
    const batches = [batchOf(4), batchOf(4), batchOf(3), batchOf(12), batchOf(1)];
    await stage(...batches);
    start({ maxEventsPerJob: 10 });
    await movedAll();
    const sizes = (await jobs()).map((job) => (job.data as UsageBatch).events.length);
    expect(sizes).toEqual([8, 3, 12, 1]);
  });

  redisTest('should add no second job when a move is repeated after a mover died between add and trim', async ({ redisUrl }) => {
    const { queue, start, stage, jobs, movedAll } = setUp(redisUrl);
    const batches = [batchOf(2), batchOf(3)];
    await stage(...batches);
    // What the dead mover got done: the job, not the trim.
    const jobId = usageBatchJobId(Buffer.from(JSON.stringify({ events: batches.flat() })));
    await queue.add(USAGE_BATCH_JOB_NAME, { events: batches.flat() }, { jobId });
    start();
    await movedAll();
    expect((await jobs()).map((job) => job.id)).toEqual([jobId]);
  });

  redisTest('should wait out the lease of a mover that died holding the lock', async ({ redisUrl }) => {
    const { redis, keys, start, stage, jobs, movedAll } = setUp(redisUrl);
    await stage(batchOf(2));
    await redis.set(keys.lock, 'a dead mover', 'PX', 400);
    const started = performance.now();
    start();
    await movedAll();
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    expect(await jobs()).toHaveLength(1);
  });

  redisTest('should move every batch exactly once with several movers at work', async ({ redisUrl }) => {
    const { stage, start, jobs, movedAll } = setUp(redisUrl);
    const movers = Array.from({ length: 3 }, () => start({ maxEventsPerJob: 7, idleDelayMs: 1 }));
    const batches = Array.from({ length: 300 }, (_, index) => batchOf(1 + (index % 3)));
    // Staged while the movers run, as routers do.
    for (let index = 0; index < batches.length; index += 30) await stage(...batches.slice(index, index + 30));
    await movedAll();
    const moved = (await jobs()).flatMap((job) => (job.data as UsageBatch).events.map((event) => event.requestId));
    expect(moved.toSorted()).toEqual(
      batches
        .flat()
        .map((event) => event.requestId)
        .toSorted(),
    );
    expect(movers).toHaveLength(3);
  });

  redisTest('should drop an entry that is no batch, with an error, and move the rest', async ({ redisUrl }) => {
    const { redis, keys, logger, start, stage, jobs, movedAll } = setUp(redisUrl);
    const [before, after] = [batchOf(1), batchOf(2)];
    await stage(before);
    await redis.rpush(keys.list, 'not json at all');
    await stage(after);
    start();
    await movedAll();
    expect((await jobs()).flatMap((job) => (job.data as UsageBatch).events)).toEqual([...before, ...after]);
    expect(logger.lines).toEqual([expect.objectContaining({ level: 'error', message: 'staged usage entry is no batch: dropped' })]);
  });

  redisTest('should trim nothing once its lease has passed to another mover', async ({ redisUrl }) => {
    const { redis, keys, stage } = setUp(redisUrl);
    const directory = join(import.meta.dirname, 'lua');
    redis.defineCommand('claim', loadScript(directory, 'claim-staged-2.lua'));
    redis.defineCommand('finish', loadScript(directory, 'finish-move-2.lua'));
    const call = (name: string, ...args: (string | number)[]) =>
      (redis as unknown as Record<string, (...values: (string | number)[]) => Promise<unknown>>)[name]?.(keys.list, keys.lock, ...args);
    await stage(batchOf(1), batchOf(1));
    expect(await call('claim', 'first', 50, 10)).toHaveLength(2);
    expect(await call('claim', 'second', 5_000, 10)).toBeNull();
    await vi.waitFor(async () => expect(await call('claim', 'second', 5_000, 10)).toHaveLength(2), { timeout: 2_000, interval: 20 });
    expect(await call('finish', 'first', 2)).toBe(0);
    expect(await redis.llen(keys.list)).toBe(2);
    expect(await call('finish', 'second', 1)).toBe(1);
    expect(await redis.llen(keys.list)).toBe(1);
    expect(await redis.exists(keys.lock)).toBe(0);
  });

  redisTest('should take no lock when nothing is staged', async ({ redisUrl }) => {
    const { redis, keys, start, stage, jobs, movedAll } = setUp(redisUrl);
    const mover = start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await redis.exists(keys.lock)).toBe(0);
    expect(await mover.stagedBatches()).toBe(0);
    await stage(batchOf(1));
    await movedAll();
    expect(await jobs()).toHaveLength(1);
  });

  redisTest('should stop in bounded time while Redis is down, after logging why it could not move', async () => {
    const server = await startRedis();
    onTestFinished(() => server.stop());
    // As startWorker connects it.
    const redis = new Redis(server.url, { maxRetriesPerRequest: 1, commandTimeout: 5_000 });
    redis.on('error', () => {});
    const queue = new EncodedDataQueue(`usage-mover-test-${(queueCounter += 1)}`, { connection: redis });
    queue.on('error', () => {});
    onTestFinished(() => redis.disconnect());
    const logger = recordingLogger();
    const mover = startStagedUsageMover({ redis, queue, logger, idleDelayMs: 10 });
    await server.kill();
    await vi.waitFor(() => expect(logger.lines.map((line) => line.message)).toContain('staged usage move failed, will retry'), { timeout: 15_000 });
    const started = performance.now();
    await mover.close();
    await queue.close();
    expect(performance.now() - started).toBeLessThan(6_000);
  }, 30_000);
});
