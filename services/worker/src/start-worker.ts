import { createLogger } from '@switchyard/telemetry';
import { USAGE_JOB_OPTIONS, USAGE_QUEUE_NAME, type PriceLookup, type UsageAggregator } from '@switchyard/usage-events';
import { createRedisUsageAggregator } from '@switchyard/usage-events/redis';
import { UnrecoverableError, Worker } from 'bullmq';
import { createAggregateUsageProcessor } from './processors/aggregate-usage.ts';
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
}

export interface UsageWorker {
  /** Resolves once the worker's connection is ready. */
  waitUntilReady(): Promise<void>;
  /** Stops taking jobs and waits for the jobs in flight to finish (SIGTERM), then closes connections. */
  close(): Promise<void>;
}

const DEFAULT_CONCURRENCY = 16;

/**
 * The `worker` target: consumes the usage queue into the aggregator (style-anchors §5). Its
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

  let closing: Promise<void> | undefined;
  return {
    waitUntilReady: async () => {
      await worker.waitUntilReady();
    },
    close: () => {
      closing ??= (async () => {
        await worker.close();
        if (ownsAggregator) await aggregator.close();
      })();
      return closing;
    },
  };
}
