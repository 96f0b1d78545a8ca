import type { PriceLookup, UsageEvent, UsageGroupBy, UsageRow } from '@switchyard/usage-events';
import { computeCostMicros } from '@switchyard/usage-events';
import type { WorkerLogger } from './worker-logger.ts';

/** Test helpers; not exported from the package. Events come from the usage-events package's own. */
export { at, TEST_YEAR, usageEvent } from '@switchyard/usage-events/test-events';

export const PRICES: PriceLookup = (model) =>
  model === 'smart' ? { inputPerMillion: 3_000_000, outputPerMillion: 15_000_000, cachedInputPerMillion: 300_000 } : undefined;

/**
 * The rows a query should answer, summed here straight from the events (each request id
 * once): the reference the aggregators are checked against.
 */
export function expectedRows(events: UsageEvent[], tenantId: string, groupBy: UsageGroupBy, prices: PriceLookup = PRICES): UsageRow[] {
  const seen = new Set<string>();
  const rows = new Map<string, UsageRow>();
  for (const event of events) {
    if (event.tenantId !== tenantId || seen.has(event.requestId)) continue;
    seen.add(event.requestId);
    const day = new Date(event.occurredAt).toISOString().slice(0, 10);
    const group = { day, month: day.slice(0, 7), model: event.model, key: event.keyId }[groupBy];
    const dimension = { day: { day: group }, month: { month: group }, model: { model: group }, key: { keyId: group } }[groupBy];
    const row = rows.get(group) ?? {
      tenantId,
      ...dimension,
      requests: 0,
      errors: 0,
      streamRequests: 0,
      inputTokens: 0,
      outputTokens: 0,
      cachedTokens: 0,
      reasoningTokens: 0,
      costMicros: 0,
    };
    const price = prices(event.model);
    row.requests += 1;
    row.errors += event.status >= 400 ? 1 : 0;
    row.streamRequests += event.stream ? 1 : 0;
    row.inputTokens += event.inputTokens;
    row.outputTokens += event.outputTokens;
    row.cachedTokens += event.cachedTokens ?? 0;
    row.reasoningTokens += event.reasoningTokens ?? 0;
    row.costMicros += event.costMicros ?? (price === undefined ? 0 : computeCostMicros(event, price));
    rows.set(group, row);
  }
  return [...rows.entries()].sort(([left], [right]) => (left < right ? -1 : 1)).map(([, row]) => row);
}

/** A logger that keeps what it is told. */
export function recordingLogger(): WorkerLogger & { lines: { level: string; object: object; message: string }[] } {
  const lines: { level: string; object: object; message: string }[] = [];
  const log = (level: string) => (object: object, message: string) => {
    lines.push({ level, object, message });
  };
  return { lines, info: log('info'), warn: log('warn'), error: log('error') };
}
