import { describe, expect, it } from 'vitest';
import { usageEvent } from './test-events.ts';
import { usageBatchJobId, usageEventSchema } from './usage-event.ts';

describe('usageEventSchema', () => {
  it('should accept an event with only the required fields', () => {
    const event = usageEvent();
    expect(usageEventSchema.parse(event)).toEqual(event);
  });

  it('should accept every optional field', () => {
    const event = usageEvent({
      upstreamProtocol: 'messages',
      provider: 'local-anthropic',
      upstreamModel: 'model-2026',
      cachedTokens: 40,
      reasoningTokens: 5,
      timeToFirstTokenMs: 80,
      costMicros: 1_234,
    });
    expect(usageEventSchema.parse(event)).toEqual(event);
  });

  it('should strip fields it does not know, so an old worker takes a newer router\'s events', () => {
    const parsed = usageEventSchema.parse({ ...usageEvent(), addedNextYear: 'x' });
    expect(parsed).not.toHaveProperty('addedNextYear');
  });

  it('should accept a client format added after the worker was built', () => {
    expect(usageEventSchema.safeParse(usageEvent({ format: 'format-of-the-future' })).success).toBe(true);
  });

  it.each([
    ['a negative token count', { inputTokens: -1 }],
    ['a fractional token count', { outputTokens: 1.5 }],
    ['an empty request id', { requestId: '' }],
    ['a status that is not HTTP', { status: 42 }],
    ['a missing tenant', { tenantId: undefined }],
  ])('should refuse %s', (_name, overrides) => {
    expect(usageEventSchema.safeParse({ ...usageEvent(), ...overrides }).success).toBe(false);
  });
});

describe('usageBatchJobId', () => {
  const data = (...requestIds: string[]) => Buffer.from(JSON.stringify({ events: requestIds.map((requestId) => usageEvent({ requestId })) }));

  it('should give ids BullMQ accepts: no colon, never an integer', () => {
    for (const requestIds of [['12345'], ['req:with:colons', '0'], ['a%3Ab']]) {
      const id = usageBatchJobId(data(...requestIds));
      expect(id).not.toContain(':');
      expect(String(Number.parseInt(id, 10))).not.toBe(id);
    }
  });

  it('should name a batch by what it carries, in order', () => {
    expect(usageBatchJobId(data('a', 'b'))).toBe(usageBatchJobId(Buffer.from(data('a', 'b'))));
    expect(usageBatchJobId(data('a', 'b'))).not.toBe(usageBatchJobId(data('a', 'b', 'c')));
    expect(usageBatchJobId(data('a', 'b'))).not.toBe(usageBatchJobId(data('b', 'a')));
  });
});
