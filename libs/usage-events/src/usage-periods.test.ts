import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { daysInRange, parseDay, sliceRange, utcDay, utcMonth } from './usage-periods.ts';

const DAY_MS = 86_400_000;

describe('usage periods', () => {
  it('should file an instant under its UTC day and month', () => {
    const lateEvening = Date.parse('2027-01-31T23:59:59.999Z');
    expect(utcDay(lateEvening)).toBe('2027-01-31');
    expect(utcMonth(lateEvening)).toBe('2027-01');
    expect(utcDay(lateEvening + 1)).toBe('2027-02-01');
  });

  it('should name any sequence of instants as formatting each one would', () => {
    // The names are kept per day: instants of the same, neighbouring and distant days, in any order.
    const instant = fc.oneof(
      fc.integer({ min: Date.parse('2026-11-30T00:00:00Z'), max: Date.parse('2026-12-01T23:59:59.999Z') }),
      fc.integer({ min: -5_000_000_000_000, max: 5_000_000_000_000 }),
    );
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 20 }), (instants) => {
        for (const at of instants) {
          const text = new Date(at).toISOString();
          expect(utcDay(at)).toBe(text.slice(0, 10));
          expect(utcMonth(at)).toBe(text.slice(0, 7));
        }
      }),
    );
  });

  it('should parse real days only', () => {
    expect(parseDay('2028-02-29')).toBe(Date.UTC(2028, 1, 29));
    expect(parseDay('2027-02-29')).toBeUndefined();
    expect(parseDay('2027-13-01')).toBeUndefined();
    expect(parseDay('2027-1-01')).toBeUndefined();
    expect(parseDay('yesterday')).toBeUndefined();
  });

  it('should read whole months from month hashes and the partial months day by day', () => {
    const slices = sliceRange(Date.UTC(2027, 0, 30), Date.UTC(2027, 3, 2), false);
    expect(slices.map((slice) => slice.period)).toEqual(['2027-01-30', '2027-01-31', '2027-02', '2027-03', '2027-04-01', '2027-04-02']);
    expect(slices.map((slice) => slice.month)).toEqual(['2027-01', '2027-01', '2027-02', '2027-03', '2027-04', '2027-04']);
  });

  it('should read every day on its own when asked', () => {
    const slices = sliceRange(Date.UTC(2027, 1, 1), Date.UTC(2027, 1, 28), true);
    expect(slices).toHaveLength(28);
    expect(slices.every((slice) => slice.granularity === 'day')).toBe(true);
  });

  it('should cover every day of any range exactly once', () => {
    const start = Date.UTC(2027, 0, 1);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 800 }), fc.integer({ min: 0, max: 400 }), fc.boolean(), (offset, length, daysOnly) => {
        const from = start + offset * DAY_MS;
        const to = from + length * DAY_MS;
        const covered: string[] = [];
        for (const slice of sliceRange(from, to, daysOnly)) {
          if (slice.granularity === 'day') covered.push(slice.period);
          else {
            const month = Date.parse(`${slice.period}-01T00:00:00Z`);
            for (let day = month; utcMonth(day) === slice.period; day += DAY_MS) covered.push(utcDay(day));
          }
        }
        const expected = Array.from({ length: daysInRange(from, to) }, (_, index) => utcDay(from + index * DAY_MS));
        expect(covered).toEqual(expected);
      }),
    );
  });
});
