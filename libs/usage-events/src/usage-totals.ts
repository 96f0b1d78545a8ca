import type { UsageEvent } from './usage-event.ts';

/** What is counted per tenant, API key, model and period. All integers. */
export interface UsageTotals {
  requests: number;
  /** Requests answered with a status of 400 or above. */
  errors: number;
  /** Requests the client asked to stream. */
  streamRequests: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  costMicros: number;
}

export type UsageMetric = keyof UsageTotals;

/**
 * Each metric's short name inside the aggregate hashes (keys.ts). Stored names are a storage
 * format: renaming one orphans the data already counted under it. Add, never rename.
 */
export const METRIC_FIELDS: Readonly<Record<UsageMetric, string>> = {
  requests: 'requests',
  errors: 'errors',
  streamRequests: 'streams',
  inputTokens: 'input',
  outputTokens: 'output',
  cachedTokens: 'cached',
  reasoningTokens: 'reasoning',
  costMicros: 'cost',
};

const METRIC_BY_FIELD = new Map<string, UsageMetric>(
  Object.entries(METRIC_FIELDS).map(([metric, field]) => [field, metric as UsageMetric]),
);

export function metricOfField(field: string): UsageMetric | undefined {
  return METRIC_BY_FIELD.get(field);
}

export function emptyTotals(): UsageTotals {
  return { requests: 0, errors: 0, streamRequests: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0, reasoningTokens: 0, costMicros: 0 };
}

/** What one event adds to its aggregates. `costMicros` is the event's own (priced before). */
export function totalsOf(event: UsageEvent): UsageTotals {
  return {
    requests: 1,
    errors: event.status >= 400 ? 1 : 0,
    streamRequests: event.stream ? 1 : 0,
    inputTokens: event.inputTokens,
    outputTokens: event.outputTokens,
    cachedTokens: event.cachedTokens ?? 0,
    reasoningTokens: event.reasoningTokens ?? 0,
    costMicros: event.costMicros ?? 0,
  };
}
