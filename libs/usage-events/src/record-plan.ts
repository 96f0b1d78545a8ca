import { aggregateFieldPrefix, aggregateKey } from './keys.ts';
import type { UsageEvent } from './usage-event.ts';
import { DAY_MS, dayEndMs, monthStartAfter, utcDay, utcMonth } from './usage-periods.ts';

/** At-least-once delivery retries for hours at most; a week of markers leaves a wide margin. */
export const MIN_MARKER_TTL_MS = 7 * DAY_MS;

export interface UsageRetention {
  /** How long a counted request id is remembered (duplicates within it are ignored). At least 7 days. */
  markerTtlMs: number;
  /** Days a day hash is kept after its day ends. */
  days: number;
  /** Months a month hash is kept after its month ends. */
  months: number;
}

export const DEFAULT_RETENTION: Readonly<UsageRetention> = { markerTtlMs: 8 * DAY_MS, days: 400, months: 60 };

export function resolveRetention(overrides: Partial<UsageRetention> = {}): UsageRetention {
  const retention = { ...DEFAULT_RETENTION, ...overrides };
  if (!(retention.markerTtlMs >= MIN_MARKER_TTL_MS)) {
    throw new Error(`usage marker TTL must be at least 7 days (${MIN_MARKER_TTL_MS} ms), got ${retention.markerTtlMs}`);
  }
  for (const name of ['days', 'months'] as const) {
    if (!Number.isInteger(retention[name]) || retention[name] < 1) throw new Error(`usage retention ${name} must be a positive integer`);
  }
  return retention;
}

/**
 * Where an event's counts go: its UTC day's and month's hashes, their expiries and the field
 * prefix of its API key and model. Every event of one tenant, key, model and day shares it.
 */
export interface PeriodPlan {
  dayKey: string;
  monthKey: string;
  dayExpiresAt: number;
  monthExpiresAt: number;
  fieldPrefix: string;
}

export function planPeriods(event: UsageEvent, retention: UsageRetention): PeriodPlan {
  return {
    dayKey: aggregateKey(event.tenantId, 'day', utcDay(event.occurredAt)),
    monthKey: aggregateKey(event.tenantId, 'month', utcMonth(event.occurredAt)),
    dayExpiresAt: dayEndMs(event.occurredAt) + retention.days * DAY_MS,
    monthExpiresAt: monthStartAfter(event.occurredAt, 1 + retention.months),
    fieldPrefix: aggregateFieldPrefix(event.keyId, event.model),
  };
}
