import { describe, expect, it } from 'vitest';
import { computeCostMicros, priceUsageEvent } from './prices.ts';
import { usageEvent } from './test-events.ts';

// $2.50 / $10 / $1.25 per million tokens, in micros.
const PRICE = { inputPerMillion: 2_500_000, outputPerMillion: 10_000_000, cachedInputPerMillion: 1_250_000 };

describe('computeCostMicros', () => {
  it('should charge input and output per million tokens', () => {
    expect(computeCostMicros({ inputTokens: 1_000_000, outputTokens: 1_000_000 }, PRICE)).toBe(12_500_000);
    expect(computeCostMicros({ inputTokens: 1_000, outputTokens: 500 }, PRICE)).toBe(2_500 + 5_000);
  });

  it('should charge cached tokens, which the input total includes, at the cached price', () => {
    expect(computeCostMicros({ inputTokens: 1_000, outputTokens: 0, cachedTokens: 600 }, PRICE)).toBe(400 * 2.5 + 600 * 1.25);
  });

  it('should charge cached tokens at the input price when the model has no cached price', () => {
    const { cachedInputPerMillion: _ignored, ...withoutCached } = PRICE;
    expect(computeCostMicros({ inputTokens: 1_000, outputTokens: 0, cachedTokens: 600 }, withoutCached)).toBe(2_500);
  });

  it('should never charge more cached tokens than input tokens', () => {
    expect(computeCostMicros({ inputTokens: 100, outputTokens: 0, cachedTokens: 500 }, PRICE)).toBe(125);
  });

  it('should round the whole request once, to the nearest micro', () => {
    // 3 tokens at 0.15 micros each: 0.45 → 0.
    expect(computeCostMicros({ inputTokens: 3, outputTokens: 0 }, { inputPerMillion: 150_000, outputPerMillion: 0 })).toBe(0);
    expect(computeCostMicros({ inputTokens: 10, outputTokens: 0 }, { inputPerMillion: 150_000, outputPerMillion: 0 })).toBe(2);
  });
});

describe('priceUsageEvent', () => {
  it('should price an event by its public model', () => {
    const priced = priceUsageEvent(usageEvent({ model: 'priced', inputTokens: 1_000, outputTokens: 100 }), (model) =>
      model === 'priced' ? PRICE : undefined,
    );
    expect(priced.costMicros).toBe(2_500 + 1_000);
  });

  it('should keep a cost the producer set', () => {
    expect(priceUsageEvent(usageEvent({ costMicros: 7 }), () => PRICE).costMicros).toBe(7);
  });

  it('should leave an event of an unpriced model without cost', () => {
    expect(priceUsageEvent(usageEvent(), () => undefined).costMicros).toBeUndefined();
  });
});
