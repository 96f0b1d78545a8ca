import { aggregateKey, parseAggregateField } from './keys.ts';
import type { UsageGroupBy, UsageQuery, UsageRow } from './usage-aggregator.ts';
import { daysInRange, parseDay, sliceRange, type PeriodSlice } from './usage-periods.ts';
import { UsageQueryError } from './usage-query-error.ts';
import { emptyTotals, metricOfField } from './usage-totals.ts';

/** Longest range of a query grouped by day: a year, leap or not. */
export const MAX_DAILY_QUERY_DAYS = 366;
/** Longest range of the other groupings: five years, read mostly from month hashes. */
export const MAX_QUERY_DAYS = 1_830;

const GROUPINGS: readonly UsageGroupBy[] = ['day', 'month', 'model', 'key'];

/** Reads the given aggregate hashes, in order; an absent hash reads as an empty record. */
export type ReadAggregates = (keys: string[]) => Promise<Record<string, string | number>[]>;

/**
 * The query side of both aggregators: which hashes cover the range, and how their fields sum
 * into rows. Only the reading of hashes differs between Redis and memory.
 */
export async function queryAggregates(read: ReadAggregates, query: UsageQuery): Promise<UsageRow[]> {
  const slices = planQuery(query);
  const hashes = await read(slices.map((slice) => aggregateKey(query.tenantId, slice.granularity, slice.period)));
  const rows = new Map<string, UsageRow>();
  hashes.forEach((hash, index) => {
    const slice = slices[index] as PeriodSlice;
    for (const [field, value] of Object.entries(hash)) {
      const parsed = parseAggregateField(field);
      const metric = parsed === undefined ? undefined : metricOfField(parsed.metric);
      if (parsed === undefined || metric === undefined) continue;
      const group = groupValue(query.groupBy, slice, parsed);
      let row = rows.get(group);
      if (row === undefined) {
        row = { tenantId: query.tenantId, ...groupField(query.groupBy, group), ...emptyTotals() };
        rows.set(group, row);
      }
      row[metric] += Number(value);
    }
  });
  return [...rows.entries()].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)).map(([, row]) => row);
}

function planQuery(query: UsageQuery): PeriodSlice[] {
  if (query.tenantId === '') throw new UsageQueryError('tenant is required');
  if (!GROUPINGS.includes(query.groupBy)) throw new UsageQueryError(`groupBy must be one of ${GROUPINGS.join(', ')}`);
  const from = parseDay(query.from);
  const to = parseDay(query.to);
  if (from === undefined) throw new UsageQueryError(`from must be a day as YYYY-MM-DD, got '${query.from}'`);
  if (to === undefined) throw new UsageQueryError(`to must be a day as YYYY-MM-DD, got '${query.to}'`);
  if (to < from) throw new UsageQueryError('to must not be before from');
  const limit = query.groupBy === 'day' ? MAX_DAILY_QUERY_DAYS : MAX_QUERY_DAYS;
  if (daysInRange(from, to) > limit) throw new UsageQueryError(`a query grouped by ${query.groupBy} spans at most ${limit} days`);
  return sliceRange(from, to, query.groupBy === 'day');
}

function groupValue(groupBy: UsageGroupBy, slice: PeriodSlice, field: { keyId: string; model: string }): string {
  switch (groupBy) {
    case 'day':
      return slice.period;
    case 'month':
      return slice.month;
    case 'model':
      return field.model;
    case 'key':
      return field.keyId;
  }
}

function groupField(groupBy: UsageGroupBy, value: string): Pick<UsageRow, 'day' | 'month' | 'model' | 'keyId'> {
  switch (groupBy) {
    case 'day':
      return { day: value };
    case 'month':
      return { month: value };
    case 'model':
      return { model: value };
    case 'key':
      return { keyId: value };
  }
}
