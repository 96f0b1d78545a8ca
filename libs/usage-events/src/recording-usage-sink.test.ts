import { redisTest } from '@switchyard/testkit';
import { describe, expect, onTestFinished } from 'vitest';
import { createRecordingUsageSink } from './recording-usage-sink.ts';
import { createRedisUsageAggregator } from './redis-usage-aggregator.ts';
import { at, TEST_YEAR, usageEvent } from './test-events.ts';

const DAY = `${TEST_YEAR}-05-02`;

// How the buffering behaves, recorded or staged: buffered-usage-sink.test.ts.
describe('recording usage sink', () => {
  redisTest('should count each request once, with its tokens and cost, by the time its emit settles', async ({ redisUrl }) => {
    const aggregator = createRedisUsageAggregator({ url: redisUrl });
    onTestFinished(() => aggregator.close());
    const sink = createRecordingUsageSink(aggregator);
    onTestFinished(() => sink.close());
    const occurredAt = at(DAY);
    const first = usageEvent({ keyId: 'k1', occurredAt, inputTokens: 10, outputTokens: 4, costMicros: 7 });
    const second = usageEvent({ keyId: 'k2', occurredAt, inputTokens: 3, outputTokens: 1, stream: true });
    // The same request again (an emit repeated after a timeout that had in fact landed) counts once.
    await Promise.all([sink.emit(first), sink.emit(second), sink.emit({ ...first })]);

    const rows = await aggregator.query({ tenantId: 'acme', from: DAY, to: DAY, groupBy: 'key' });
    expect(rows.map(({ keyId, requests, streamRequests, inputTokens, outputTokens, costMicros }) => ({ keyId, requests, streamRequests, inputTokens, outputTokens, costMicros }))).toEqual([
      { keyId: 'k1', requests: 1, streamRequests: 0, inputTokens: 10, outputTokens: 4, costMicros: 7 },
      { keyId: 'k2', requests: 1, streamRequests: 1, inputTokens: 3, outputTokens: 1, costMicros: 0 },
    ]);
  });

  redisTest('should leave the aggregator open for its owner', async ({ redisUrl }) => {
    const aggregator = createRedisUsageAggregator({ url: redisUrl });
    onTestFinished(() => aggregator.close());
    const sink = createRecordingUsageSink(aggregator);
    await sink.close();
    expect(await aggregator.record([usageEvent({ occurredAt: at(DAY) })])).toEqual([true]);
  });
});
