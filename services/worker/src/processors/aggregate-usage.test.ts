import { redisTest } from '@switchyard/testkit';
import { createRedisUsageAggregator, type UsageAggregator } from '@switchyard/usage-events';
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
    expect(await process({ id: 'first', data: event })).toEqual({ counted: true });
    expect(await process({ id: 'first', data: event })).toEqual({ counted: false });
    // Another job of the same request (re-emitted after the first job was removed).
    expect(await process({ id: 'second', data: structuredClone(event) })).toEqual({ counted: false });
    expect(await monthRows()).toEqual(expectedRows([event], 'acme', 'month'));
  });

  redisTest('should price by the public model and keep a cost the router set', async ({ redisUrl }) => {
    const { process, monthRows } = open(redisUrl);
    await process({ data: usageEvent({ model: 'smart', inputTokens: 1_000_000, outputTokens: 0 }) });
    await process({ data: usageEvent({ model: 'smart', inputTokens: 1_000_000, outputTokens: 0, costMicros: 5 }) });
    await process({ data: usageEvent({ model: 'unpriced', inputTokens: 1_000_000, outputTokens: 0 }) });
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

  redisTest('should accept a payload from an older router without the optional fields', async ({ redisUrl }) => {
    const { process } = open(redisUrl);
    const { requestId, tenantId, keyId, format, model, status, stream, inputTokens, outputTokens, estimated, latencyMs, occurredAt } = usageEvent();
    const minimal = { requestId, tenantId, keyId, format, model, status, stream, inputTokens, outputTokens, estimated, latencyMs, occurredAt };
    expect(await process({ data: { ...minimal, fieldFromTheFuture: true } })).toEqual({ counted: true });
  });
});
