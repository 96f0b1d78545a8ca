import type { UsageEvent } from './usage-event.ts';

/** A model's prices in millionths of the currency (micros) per one million tokens. */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
  /** Price of cached input tokens; defaults to the input price. */
  cachedInputPerMillion?: number;
}

/** The price of a public model name, or undefined when it has none (its usage then costs 0). */
export type PriceLookup = (model: string) => ModelPrice | undefined;

const TOKENS_PER_PRICE_UNIT = 1_000_000;

/**
 * Cost of one request in micros, rounded to the nearest micro once for the whole request.
 * Input totals include cached tokens (canonical usage), so cached tokens are taken out of the
 * input and charged at the cached price; reasoning tokens are part of the output and charged
 * as output.
 */
export function computeCostMicros(
  usage: Pick<UsageEvent, 'inputTokens' | 'outputTokens' | 'cachedTokens'>,
  price: ModelPrice,
): number {
  const cached = Math.min(usage.cachedTokens ?? 0, usage.inputTokens);
  const uncached = usage.inputTokens - cached;
  const cachedPrice = price.cachedInputPerMillion ?? price.inputPerMillion;
  const scaled = uncached * price.inputPerMillion + cached * cachedPrice + usage.outputTokens * price.outputPerMillion;
  return Math.round(scaled / TOKENS_PER_PRICE_UNIT);
}

/**
 * The event with its cost: a cost the producer already set is kept (it may know prices the
 * worker does not), otherwise it is computed from the public model's price, if any.
 */
export function priceUsageEvent(event: UsageEvent, prices: PriceLookup): UsageEvent {
  if (event.costMicros !== undefined) return event;
  const price = prices(event.model);
  return price === undefined ? event : { ...event, costMicros: computeCostMicros(event, price) };
}
