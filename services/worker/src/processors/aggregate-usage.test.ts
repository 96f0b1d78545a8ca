import { redisTest } from '@switchyard/testkit';
import type { UsageAggregator } from '@switchyard/usage-events';
import { createRedisUsageAggregator } from '@switchyard/usage-events/redis';
import { UnrecoverableError } from 'bullmq';
import { describe, expect, onTestFinished } from 'vitest';
import { expectedRows, PRICES, recordingLogger, TEST_YEAR, usageEvent } from '../test-support.ts';
import { createAggregateUsageProcessor } from './aggregate-usage.ts';

const Y = TEST_YEAR;

function open(redisUrl: string) {
  const aggregator: UsageAggregator = createRedisUsageAggregator({ url: redisUrl });
  onTestFinished(() => aggregator.close());
  const logger = recordingLogger();
  const process = createAggregateUsageProcessor({ aggregator, prices: PRICES, logger });
  const monthRows = () => aggregator.query({ tenantId: 'acme', from: `${Y}-01-01`, to: `${Y}-12-31`, groupBy: 'month' });
  return { aggregator, logger, process, monthRows };
}

describe('aggregate-usage processor', () => {
  redisTest('should count a job delivered twice once', async ({ redisUrl }) => {
    const { process, monthRows } = open(redisUrl);
    const event = usageEvent({ model: 'smart', inputTokens: 1_000, outputTokens: 100, cachedTokens: 500 });
    const other = usageEvent({ model: 'fast', inputTokens: 7, outputTokens: 3 });
    expect(await process({ id: 'first', data: { events: [event, other] } })).toEqual({ counted: 2, repeated: 0 });
    expect(await process({ id: 'first', data: { events: [event, other] } })).toEqual({ counted: 0, repeated: 2 });
    // Another job of one of its requests (re-emitted after the first job was removed), from an older router.
    expect(await process({ id: 'second', data: structuredClone(event) })).toEqual({ counted: 0, repeated: 1 });
    expect(await monthRows()).toEqual(expectedRows([event, other], 'acme', 'month'));
  });

  redisTest('should count an event repeated within one batch once', async ({ redisUrl }) => {
    const { process, monthRows } = open(redisUrl);
    const event = usageEvent({ inputTokens: 5 });
    expect(await process({ data: { events: [event, structuredClone(event)] } })).toEqual({ counted: 1, repeated: 1 });
    expect(await monthRows()).toEqual(expectedRows([event], 'acme', 'month'));
  });

  redisTest('should price by the public model and keep a cost the router set', async ({ redisUrl }) => {
    const { process, monthRows } = open(redisUrl);
    await process({
      data: {
        events: [
          usageEvent({ model: 'smart', inputTokens: 1_000_000, outputTokens: 0 }),
          usageEvent({ model: 'smart', inputTokens: 1_000_000, outputTokens: 0, costMicros: 5 }),
          usageEvent({ model: 'unpriced', inputTokens: 1_000_000, outputTokens: 0 }),
        ],
      },
    });
    expect((await monthRows())[0]?.costMicros).toBe(3_000_000 + 5);
  });

  redisTest('should fail an invalid payload as unrecoverable, log why, and count nothing', async ({ redisUrl }) => {
    const { process, logger, monthRows } = open(redisUrl);
    const error = await process({ id: 'bad', data: { ...usageEvent(), inputTokens: 'many' } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnrecoverableError);
    expect((error as Error).message).toMatch(/inputTokens/);
    expect(logger.lines).toEqual([
      expect.objectContaining({ level: 'error', message: 'invalid usage event dropped', object: expect.objectContaining({ jobId: 'bad' }) }),
    ]);
    expect(await monthRows()).toEqual([]);
  });

  redisTest('should fail a batch without events as unrecoverable', async ({ redisUrl }) => {
    const { process, logger } = open(redisUrl);
    await expect(process({ id: 'empty', data: { events: [] } })).rejects.toBeInstanceOf(UnrecoverableError);
    expect(logger.lines).toEqual([expect.objectContaining({ level: 'error', object: expect.objectContaining({ jobId: 'empty' }) })]);
  });

  redisTest('should accept a payload from an older router without the optional fields', async ({ redisUrl }) => {
    const { process } = open(redisUrl);
    const { requestId, tenantId, keyId, format, model, status, stream, inputTokens, outputTokens, estimated, latencyMs, occurredAt } = usageEvent();
    const minimal = { requestId, tenantId, keyId, format, model, status, stream, inputTokens, outputTokens, estimated, latencyMs, occurredAt };
    expect(await process({ data: { ...minimal, fieldFromTheFuture: true } })).toEqual({ counted: 1, repeated: 0 });
    expect(await process({ data: { events: [{ ...usageEvent(), fieldFromTheFuture: true }], batchFieldFromTheFuture: 1 } })).toEqual({
      counted: 1,
      repeated: 0,
    });
  });
});
