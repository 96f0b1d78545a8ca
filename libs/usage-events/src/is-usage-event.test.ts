import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isExactUsageEvent } from './is-usage-event.ts';
import { usageEvent } from './test-events.ts';
import { usageEventSchema } from './usage-event.ts';

/** Values a field may hold, right or wrong for it. */
const anyValue = fc.oneof(
  fc.string(),
  fc.constant(''),
  fc.integer({ min: -5, max: 1_000 }),
  fc.constantFrom(0, -1, 99, 100, 599, 600, 1.5, -0, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 2),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant({}),
);

const FIELDS = Object.keys(usageEventSchema.shape);

/** A valid event with some fields replaced, removed or added. */
const mutated = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom(...FIELDS, 'addedNextYear'), anyValue), { maxLength: 3 }),
    fc.array(fc.constantFrom(...FIELDS), { maxLength: 2 }),
    fc.boolean(),
  )
  .map(([replaced, removed, withOptionals]) => {
    const event: Record<string, unknown> = {
      ...usageEvent(withOptionals ? { upstreamProtocol: 'messages', provider: 'p', upstreamModel: 'm', cachedTokens: 1, reasoningTokens: 2, timeToFirstTokenMs: 3.5, costMicros: 4 } : {}),
    };
    for (const [field, value] of replaced) event[field] = value;
    for (const field of removed) delete event[field];
    return event;
  });

describe('isExactUsageEvent', () => {
  it('should accept only events the schema accepts and returns unchanged', () => {
    fc.assert(
      fc.property(mutated, (event) => {
        if (!isExactUsageEvent(event)) return;
        const parsed = usageEventSchema.safeParse(event);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toStrictEqual(event);
      }),
      { numRuns: 5_000 },
    );
  });

  it('should accept the events routers build, with and without the optional fields', () => {
    expect(isExactUsageEvent(usageEvent())).toBe(true);
    expect(isExactUsageEvent(usageEvent({ upstreamProtocol: 'messages', provider: 'p', upstreamModel: 'm', cachedTokens: 0, costMicros: 7, timeToFirstTokenMs: 0 }))).toBe(true);
  });

  it('should leave to the schema what it would change or refuse', () => {
    expect(isExactUsageEvent({ ...usageEvent(), addedNextYear: 1 })).toBe(false);
    expect(isExactUsageEvent({ ...usageEvent(), cachedTokens: undefined })).toBe(false);
    expect(isExactUsageEvent(usageEvent({ inputTokens: 1.5 }))).toBe(false);
    expect(isExactUsageEvent(usageEvent({ status: 600 }))).toBe(false);
    expect(isExactUsageEvent(usageEvent({ model: '' }))).toBe(false);
    expect(isExactUsageEvent(null)).toBe(false);
  });
});
