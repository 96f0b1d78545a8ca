import { createLogger } from '@switchyard/telemetry';
import { USAGE_JOB_OPTIONS, USAGE_QUEUE_NAME, type PriceLookup, type UsageAggregator } from '@switchyard/usage-events';
import { createRedisUsageAggregator } from '@switchyard/usage-events/redis';
import { UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { EncodedDataQueue } from './encoded-data-queue.ts';
import { createAggregateUsageProcessor } from './processors/aggregate-usage.ts';
import { startStagedUsageMover, type StagedUsageMoverOptions } from './staged-usage-mover.ts';
import type { WorkerLogger } from './worker-logger.ts';

export interface StartWorkerOptions {
  redisUrl: string;
  /** Where usage is counted. Default: a Redis aggregator on `redisUrl`, closed with the worker. */
  aggregator?: UsageAggregator;
  /** Prices of public model names, for events the router did not price. */
  prices: PriceLookup;
  /** Jobs processed at once. Default 16: each is one short script call. */
  concurrency?: number;
  queueName?: string;
  logger?: WorkerLogger;
  /** Bounds of the staged-usage mover (tests set them small). */
  mover?: Pick<StagedUsageMoverOptions, 'maxEventsPerJob' | 'idleDelayMs' | 'leaseMs'>;
}

export interface UsageWorker {
  /** Resolves once the worker's connection is ready. */
  waitUntilReady(): Promise<void>;
  /**
   * Usage batches waiting to be counted: staged by routers and not yet moved, plus jobs waiting
   * or delayed (a retry). What the backlog alert watches.
   */
  backlog(): Promise<number>;
  /** Stops moving and taking jobs, waits for the move and jobs in flight to finish (SIGTERM), then closes connections. */
  close(): Promise<void>;
}

const DEFAULT_CONCURRENCY = 16;

/**
 * The `worker` target: moves the usage batches routers staged into the usage queue
 * (staged-usage-mover.ts) and consumes the queue into the aggregator (style-anchors §5). Its
 * connections use `maxRetriesPerRequest: null` as BullMQ requires of workers; `error` and
 * `failed` events are logged; finished jobs are bounded by USAGE_JOB_OPTIONS.
 */
export function startWorker(options: StartWorkerOptions): UsageWorker {
  const logger = options.logger ?? createLogger({ name: 'worker' });
  const ownsAggregator = options.aggregator === undefined;
  const aggregator = options.aggregator ?? createRedisUsageAggregator({ url: options.redisUrl });
  const queueName = options.queueName ?? USAGE_QUEUE_NAME;
  const processor = createAggregateUsageProcessor({ aggregator, prices: options.prices, logger });

  const worker = new Worker(queueName, processor, {
    connection: { url: options.redisUrl, maxRetriesPerRequest: null },
    concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
    // Jobs take milliseconds: a short lock lets a new worker take over a crashed one's jobs in
    // seconds instead of BullMQ's default minute.
    lockDuration: 10_000,
    stalledInterval: 5_000,
    removeOnComplete: USAGE_JOB_OPTIONS.removeOnComplete,
    removeOnFail: USAGE_JOB_OPTIONS.removeOnFail,
  });
  worker.on('error', (error) => logger.error({ err: error, queue: queueName }, 'usage worker error'));
  worker.on('failed', (job, error) => {
    // Invalid payloads were logged with their issues by the processor.
    if (error instanceof UnrecoverableError) return;
    const attempts = job?.opts.attempts ?? 1;
    const final = job === undefined || job.attemptsMade >= attempts;
    const details = { err: error, jobId: job?.id, attemptsMade: job?.attemptsMade, attempts };
    if (final) logger.error(details, 'usage job failed, no attempts left: its usage is not counted');
    else logger.warn(details, 'usage job failed, will retry');
  });

  // The mover's connection, which its queue shares (BullMQ then leaves closing it to us): a call
  // fails after one reconnect and within 5 s, so that neither a move nor close() hangs on an
  // unreachable Redis; the mover retries.
  const moverRedis = new Redis(options.redisUrl, {
    maxRetriesPerRequest: 1,
    commandTimeout: 5_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  const queue = new EncodedDataQueue(queueName, { connection: moverRedis });
  // Failures surface through the moves (the queue's adds among them), which log them with backoff;
  // the connection's errors would otherwise be a line per reconnect attempt.
  moverRedis.on('error', () => {});
  queue.on('error', () => {});
  const mover = startStagedUsageMover({ redis: moverRedis, queue, logger, ...options.mover });

  let closing: Promise<void> | undefined;
  return {
    waitUntilReady: async () => {
      await Promise.all([worker.waitUntilReady(), queue.waitUntilReady()]);
    },
    backlog: async () => {
      const [staged, counts] = await Promise.all([mover.stagedBatches(), queue.getJobCounts('waiting', 'delayed')]);
      return staged + (counts.waiting ?? 0) + (counts.delayed ?? 0);
    },
    close: () => {
      closing ??= (async () => {
        // The mover first: its last job is then taken by the worker if there is time.
        await mover.close();
        await queue.close();
        moverRedis.disconnect();
        await worker.close();
        if (ownsAggregator) await aggregator.close();
      })();
      return closing;
    },
  };
}
