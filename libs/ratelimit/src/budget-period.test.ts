import { inlineIncludes } from '@switchyard/redis-scripts';
import { redisTest } from '@switchyard/testkit';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { admitToBudget, budgetPeriods, currentUsage } from './budget-period.ts';

describe('budgetPeriods', () => {
  it('should count UTC days and months and the time to the next of each', () => {
    const now = Date.UTC(2028, 1, 29, 23, 59, 59, 999);
    expect(budgetPeriods(now)).toEqual({
      day: Math.floor(now / 86_400_000),
      month: 2028 * 12 + 1,
      msUntilNextDay: 1,
      msUntilNextMonth: 1,
    });
    expect(budgetPeriods(Date.UTC(2026, 11, 31, 12))).toMatchObject({ month: 2026 * 12 + 11, msUntilNextMonth: 12 * 3_600_000 });
  });

  it('should answer any sequence of moments as computing each one afresh would', () => {
    // The calendar is kept per day: moments of the same, neighbouring and distant days, in any order.
    const fresh = (now: number) => {
      const date = new Date(now);
      const day = Math.floor(now / 86_400_000);
      return {
        day,
        month: date.getUTCFullYear() * 12 + date.getUTCMonth(),
        msUntilNextDay: (day + 1) * 86_400_000 - now,
        msUntilNextMonth: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) - now,
      };
    };
    const moment = fc.oneof(fc.integer({ min: Date.UTC(2026, 10, 30), max: Date.UTC(2026, 11, 2) }), fc.integer({ min: 0, max: Date.UTC(2200, 0, 1) }));
    fc.assert(
      fc.property(fc.array(moment, { minLength: 1, maxLength: 20 }), (moments) => {
        for (const now of moments) expect(budgetPeriods(now)).toEqual(fresh(now));
      }),
    );
  });

  it('should read a counter of an earlier day as 0 while keeping the month', () => {
    const periods = budgetPeriods(Date.UTC(2026, 7, 14, 0, 0, 1));
    const stored = { day: periods.day - 1, dayUsed: 500, month: periods.month, monthUsed: 800 };
    expect(currentUsage(stored, periods)).toEqual({ dayUsed: 0, monthUsed: 800 });
  });

  it('should refuse a spent budget until the period ends, and a cost above the budget for good', () => {
    expect(admitToBudget(900, 1_000, 100, 5_000)).toEqual({ allowed: true, exceedsLimit: false, retryAfterMs: 0 });
    expect(admitToBudget(901, 1_000, 100, 5_000)).toEqual({ allowed: false, exceedsLimit: false, retryAfterMs: 5_000 });
    expect(admitToBudget(0, 1_000, 1_001, 5_000)).toEqual({ allowed: false, exceedsLimit: true, retryAfterMs: 0 });
  });

  redisTest('should agree with the Lua calendar maths for any moment from 1970 to 2200', async ({ redisUrl }) => {
    const redis = new Redis(redisUrl);
    const script = inlineIncludes(
      join(import.meta.dirname, 'lua'),
      [
        '--- @include "constants"',
        '--- @include "budget"',
        'local p = budget_periods(tonumber(ARGV[1]))',
        'return { p.day, p.month, p.ms_until_next_day, p.ms_until_next_month }',
      ].join('\n'),
    );
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.integer({ min: 0, max: Date.UTC(2200, 0, 1) }),
            // Month ends, where the calendar maths is most likely to slip.
            fc.record({ year: fc.integer({ min: 1970, max: 2199 }), month: fc.integer({ min: 0, max: 11 }), offset: fc.integer({ min: -2, max: 2 }) }).map(
              ({ year, month, offset }) => Date.UTC(year, month + 1, 1) + offset,
            ),
          ),
          async (now) => {
            const periods = budgetPeriods(now);
            const reply = await redis.eval(script, 0, String(now));
            expect(reply).toEqual([periods.day, periods.month, periods.msUntilNextDay, periods.msUntilNextMonth]);
          },
        ),
        { numRuns: 500 },
      );
    } finally {
      redis.disconnect();
    }
  });
});
