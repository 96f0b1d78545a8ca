import type { UsageEvent } from './usage-event.ts';
import type { UsageTotals } from './usage-totals.ts';

export type UsageGroupBy = 'day' | 'month' | 'model' | 'key';

export interface UsageQuery {
  tenantId: string;
  /** First UTC day counted, `YYYY-MM-DD`. */
  from: string;
  /** Last UTC day counted, `YYYY-MM-DD`, inclusive. */
  to: string;
  groupBy: UsageGroupBy;
}

/**
 * The totals of one group over the queried days. Exactly one of `day`, `month`, `model`,
 * `keyId` is set, the one grouped by. A `month` row counts only the days of the month inside
 * the range. Groups without usage have no row.
 */
export interface UsageRow extends UsageTotals {
  tenantId: string;
  day?: string;
  month?: string;
  model?: string;
  keyId?: string;
}

/**
 * Counts usage events per tenant, API key, model, UTC day and UTC month, each request at most
 * once however often it is delivered.
 */
export interface UsageAggregator {
  /**
   * Counts the events (already priced, see priceUsageEvent), in their order; for each, false when
   * its request id was already counted. Batches are what every caller has (a worker's job, a
   * sink's buffer), and the Redis aggregator sends each tenant's share of one as one script call.
   */
  record(events: readonly UsageEvent[]): Promise<boolean[]>;
  /** Rows sorted by the grouped value. Throws UsageQueryError for a malformed query. */
  query(query: UsageQuery): Promise<UsageRow[]>;
  /** Releases connections the aggregator opened. */
  close(): Promise<void>;
}
