import { describe, expect, it } from 'vitest';
import { decodeStagedBatch, encodeStagedBatch, stagedUsageKeys } from './staged-usage.ts';
import { usageEvent } from './test-events.ts';

describe('staged usage', () => {
  it('should read back the events a batch was written with', () => {
    const events = [usageEvent({ cachedTokens: 4 }), usageEvent({ stream: true })];
    expect(decodeStagedBatch(encodeStagedBatch(events))).toEqual(events);
  });

  it('should tell an entry that is no batch', () => {
    for (const entry of ['', 'not json', '42', 'null', '[]', '{"events":{}}', '{"event":[]}']) expect(decodeStagedBatch(entry)).toBeUndefined();
  });

  it('should keep the list and lock of a queue in one Cluster slot, apart from other queues', () => {
    const keys = stagedUsageKeys('switchyard-usage');
    expect(keys).toEqual({ list: 'sy:{usage:switchyard-usage}:staged', lock: 'sy:{usage:switchyard-usage}:mover' });
    expect(stagedUsageKeys('other').list).not.toBe(keys.list);
  });
});
