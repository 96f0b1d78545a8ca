/**
 * UTC calendar periods. Usage counts in the UTC day and month of the event's `occurredAt`,
 * so every worker replica files an event under the same keys whatever its time zone.
 */

export const DAY_MS = 86_400_000;
const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The last day asked for and its names: every usage event is filed under its day and month,
 * and nearly all of them under the same ones, so the date is formatted once a day rather than
 * twice an event.
 */
let cachedDay = Number.NaN;
let cachedDayText = '';
let cachedMonthText = '';

/** The UTC day of an instant as a number (days since the epoch): the same for every instant of that day. */
export function utcDayNumber(epochMs: number): number {
  return Math.floor(epochMs / DAY_MS);
}

function nameDay(epochMs: number): void {
  const day = utcDayNumber(epochMs);
  if (day === cachedDay) return;
  const text = new Date(day * DAY_MS).toISOString();
  cachedDay = day;
  cachedDayText = text.slice(0, 10);
  cachedMonthText = text.slice(0, 7);
}

/** `YYYY-MM-DD` of an instant, in UTC. */
export function utcDay(epochMs: number): string {
  nameDay(epochMs);
  return cachedDayText;
}

/** `YYYY-MM` of an instant, in UTC. */
export function utcMonth(epochMs: number): string {
  nameDay(epochMs);
  return cachedMonthText;
}

/** The start of a `YYYY-MM-DD` day in ms, or undefined when the text is not a real calendar day. */
export function parseDay(day: string): number | undefined {
  const match = DAY_PATTERN.exec(day);
  if (match === null) return undefined;
  const start = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  // Date.UTC rolls 2026-02-30 over to March; a real day survives the round trip.
  return utcDay(start) === day ? start : undefined;
}

/** The first instant after the day of `epochMs`. */
export function dayEndMs(epochMs: number): number {
  return Math.floor(epochMs / DAY_MS) * DAY_MS + DAY_MS;
}

/** The first instant of the month `months` after the month of `epochMs` (1 = the next month's start). */
export function monthStartAfter(epochMs: number, months: number): number {
  const date = new Date(epochMs);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1);
}

/** Whole days from `from` to `to`, both inclusive (day starts in ms). */
export function daysInRange(fromMs: number, toMs: number): number {
  return Math.floor((toMs - fromMs) / DAY_MS) + 1;
}

/** A stretch of the range that one stored hash answers: a whole month, or one day. */
export interface PeriodSlice {
  granularity: 'day' | 'month';
  /** `YYYY-MM-DD` or `YYYY-MM`. */
  period: string;
  /** The month the slice lies in, `YYYY-MM`. */
  month: string;
}

/**
 * The fewest stored hashes that cover `from`..`to` (inclusive day starts) exactly: a month
 * lying wholly inside the range is read from its month hash, the days of partly covered
 * months from their day hashes. With `daysOnly`, every day is read on its own.
 */
export function sliceRange(fromMs: number, toMs: number, daysOnly: boolean): PeriodSlice[] {
  const slices: PeriodSlice[] = [];
  let cursor = fromMs;
  while (cursor <= toMs) {
    const month = utcMonth(cursor);
    const monthStart = monthStartAfter(cursor, 0);
    const nextMonth = monthStartAfter(cursor, 1);
    if (!daysOnly && cursor === monthStart && nextMonth - DAY_MS <= toMs) {
      slices.push({ granularity: 'month', period: month, month });
      cursor = nextMonth;
      continue;
    }
    const end = Math.min(nextMonth - DAY_MS, toMs);
    for (; cursor <= end; cursor += DAY_MS) slices.push({ granularity: 'day', period: utcDay(cursor), month });
  }
  return slices;
}
