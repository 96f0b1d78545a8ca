import { describe, expect, it } from 'vitest';
import { decodeStagedBatch, encodeStagedBatch, readStagedEvents, stagedUsageKeys } from './staged-usage.ts';
import { usageEvent } from './test-events.ts';

describe('staged usage', () => {
  it('should read back the events a batch was written with', () => {
    const events = [usageEvent({ cachedTokens: 4 }), usageEvent({ stream: true })];
    expect(decodeStagedBatch(encodeStagedBatch(events))).toEqual(events);
  });

  it('should tell an entry that is no batch', () => {
    for (const entry of ['', 'not json', '42', 'null', '[]', '{"events":{}}', '{"event":[]}']) expect(decodeStagedBatch(entry)).toBeUndefined();
  });

  it('should read the events of a batch as their JSON, with their count, without parsing them', () => {
    const events = [usageEvent({ cachedTokens: 4 }), usageEvent({ stream: true }), usageEvent({ model: 'a "quoted" ] model' })];
    const entry = Buffer.from(encodeStagedBatch(events));
    const read = readStagedEvents(entry);
    expect(read?.count).toBe(3);
    expect(JSON.parse(`[${read?.json.toString()}]`)).toEqual(events);
    // A view of the entry, not a copy.
    expect(read?.json.buffer).toBe(entry.buffer);
  });

  it('should read a batch staged by a router older than the count', () => {
    const events = [usageEvent(), usageEvent({ outputTokens: 9 })];
    const read = readStagedEvents(Buffer.from(JSON.stringify({ events })));
    expect(read?.count).toBe(2);
    expect(JSON.parse(`[${read?.json.toString()}]`)).toEqual(events);
  });

  it('should parse an entry whose frame does not hold, and tell one that is no batch', () => {
    const event = usageEvent();
    // Well-formed JSON in another layout is still a batch.
    expect(readStagedEvents(Buffer.from(`{"count":1, "events":[${JSON.stringify(event)}]}`))?.count).toBe(1);
    for (const entry of ['', 'not json', '[]', '{"events":[]}', '{"count":0,"events":[]}', '{"count":1,"events":[]}', '{"count":2,"events":[{"a":1}', '{"count":,"events":[1]}']) {
      expect(readStagedEvents(Buffer.from(entry))).toBeUndefined();
    }
  });

  it('should keep the list and lock of a queue in one Cluster slot, apart from other queues', () => {
    const keys = stagedUsageKeys('switchyard-usage');
    expect(keys).toEqual({ list: 'sy:{usage:switchyard-usage}:staged', lock: 'sy:{usage:switchyard-usage}:mover' });
    expect(stagedUsageKeys('other').list).not.toBe(keys.list);
  });
});
