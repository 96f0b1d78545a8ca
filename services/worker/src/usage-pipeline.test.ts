import { redisTest } from '@switchyard/testkit';
import { createMemoryUsageAggregator, createMemoryUsageSink, type UsageAggregator, type UsageEvent, type UsageSink } from '@switchyard/usage-events';
import { createRedisUsageAggregator, createRedisUsageSink } from '@switchyard/usage-events/redis';
import { Queue } from 'bullmq';
import { describe, expect, onTestFinished, vi } from 'vitest';
import { startWorker } from './start-worker.ts';
import { at, expectedRows, PRICES, recordingLogger, TEST_YEAR, usageEvent } from './test-support.ts';

// One contract for both ways usage flows: `all` without Redis (memory sink straight into the
// memory aggregator) and split mode (Redis sink → staged → queue → worker → Redis aggregator). The
// same test bodies run against each; the answers must be the same.

interface Pipeline {
  sink: UsageSink;
  aggregator: UsageAggregator;
  /** Resolves once everything emitted so far is counted. */
  drain(): Promise<void>;
}

let queueCounter = 0;

const pipelines: { name: string; open: (redisUrl: string) => Pipeline }[] = [
  {
    name: 'memory sink → memory aggregator',
    open: () => {
      const aggregator = createMemoryUsageAggregator();
      const sink = createMemoryUsageSink(aggregator, { prices: PRICES });
      onTestFinished(async () => {
        await sink.close();
        await aggregator.close();
      });
      return { sink, aggregator, drain: () => sink.close() };
    },
  },
  {
    name: 'redis sink → worker → redis aggregator',
    open: (redisUrl) => {
      const queueName = `usage-pipeline-${(queueCounter += 1)}`;
      const aggregator = createRedisUsageAggregator({ url: redisUrl });
      const sink = createRedisUsageSink({ redisUrl, queueName });
      const worker = startWorker({ redisUrl, queueName, aggregator, prices: PRICES, logger: recordingLogger() });
      const queue = new Queue(queueName, { connection: { url: redisUrl } });
      onTestFinished(async () => {
        await sink.close();
        await worker.close();
        await queue.close();
        await aggregator.close();
      });
      return {
        sink,
        aggregator,
        drain: async () => {
          await sink.close();
          await vi.waitFor(
            async () => {
              // A batch only moves forward (staged → waiting → active → done), so the earlier
              // states are read first: read the other way round, a job waiting when `active`
              // was read and active when the backlog was read was counted nowhere.
              const backlog = await worker.backlog();
              const counts = await queue.getJobCounts('active');
              expect(backlog + (counts.active ?? 0)).toBe(0);
            },
            { timeout: 20_000, interval: 25 },
          );
        },
      };
    },
  },
];

const Y = TEST_YEAR;

describe.each(pipelines)('$name', ({ open }) => {
  redisTest('should count what is emitted, each request once, per tenant, key, model, day and month', async ({ redisUrl }) => {
    const { sink, aggregator, drain } = open(redisUrl);
    const events: UsageEvent[] = [
      usageEvent({ model: 'smart', inputTokens: 2_000, outputTokens: 500, cachedTokens: 1_500, reasoningTokens: 200, stream: true }),
      usageEvent({ model: 'fast', keyId: 'web', status: 500, occurredAt: at(`${Y}-03-31`, 23) }),
      usageEvent({ model: 'smart', keyId: 'web', occurredAt: at(`${Y}-04-01`, 0), costMicros: 42 }),
      usageEvent({ tenantId: 'globex', model: 'smart', inputTokens: 9_999 }),
    ];
    for (const event of events) sink.emit(event);
    sink.emit(events[0] as UsageEvent); // a repeated emit
    sink.emit({ ...usageEvent(), outputTokens: -1 }); // invalid: dropped
    await drain();
    for (const tenantId of ['acme', 'globex']) {
      for (const groupBy of ['day', 'month', 'model', 'key'] as const) {
        const rows = await aggregator.query({ tenantId, from: `${Y}-03-01`, to: `${Y}-04-30`, groupBy });
        expect(rows).toEqual(expectedRows(events, tenantId, groupBy));
      }
    }
  });

  redisTest('should never throw from emit, whatever it is given', async ({ redisUrl }) => {
    const { sink, drain } = open(redisUrl);
    for (const garbage of [null, undefined, 42, 'event', {}, { requestId: 'x' }]) {
      expect(() => sink.emit(garbage as unknown as UsageEvent)).not.toThrow();
    }
    await drain();
  });
});
