import fc from 'fast-check';
import { describe, expect, it, onTestFinished } from 'vitest';
import { PERIOD_MS } from './constants.ts';
import { createMemoryLimiter } from './memory-limiter.ts';
import {
  chargeWindow,
  currentWindow,
  describeWindow,
  NEVER,
  PAST_SLOTS,
  refundWindow,
  SLOT_MS,
  slotLeavesAt,
  slotOf,
  waitForRoom,
  type SlotWindow,
} from './sliding-window.ts';

/** A whole second: slot boundaries fall on round offsets from here. */
const START = 1_760_000_000_000;

interface Arrival {
  at: number;
  cost: number;
}

/** Feeds arrivals through the pure maths the way both limiters do; returns the admitted ones. */
function simulate(limit: number, arrivals: readonly Arrival[]): Arrival[] {
  let window: SlotWindow | undefined;
  const admitted: Arrival[] = [];
  for (const arrival of arrivals) {
    window = currentWindow(window, slotOf(arrival.at));
    if (waitForRoom(window, limit, arrival.cost, arrival.at) !== 0) continue;
    if (arrival.cost > 0) window = chargeWindow(window, slotOf(arrival.at), arrival.cost);
    admitted.push(arrival);
  }
  return admitted;
}

/** A window built from (slot offset, units) pairs, as read at `slot`. */
function windowOf(slot: number, charges: readonly [number, number][]): SlotWindow | undefined {
  let window: SlotWindow | undefined;
  for (const [offset, units] of charges) window = chargeWindow(currentWindow(window, slot + offset), slot + offset, units);
  return currentWindow(window, slot);
}

/**
 * The largest total cost in any window [t, t + 60 s) over `events`, brute force: the heaviest
 * window starts at an event, so it is enough to try each one as the start.
 */
function heaviestMinute<T>(events: readonly T[], at: (event: T) => number, cost: (event: T) => number): number {
  const sorted = [...events].sort((a, b) => at(a) - at(b));
  let heaviest = 0;
  for (let first = 0; first < sorted.length; first += 1) {
    const start = at(sorted[first] as T);
    let total = 0;
    for (let index = first; index < sorted.length && at(sorted[index] as T) < start + PERIOD_MS; index += 1) total += cost(sorted[index] as T);
    heaviest = Math.max(heaviest, total);
  }
  return heaviest;
}

/** Gaps that land on slot and window boundaries often, and bunch arrivals enough to hit the limit. */
const gapArbitrary = fc.oneof(
  fc.constantFrom(0, 1, SLOT_MS - 1, SLOT_MS, SLOT_MS + 1, PERIOD_MS - 1, PERIOD_MS, PERIOD_MS + SLOT_MS - 1, PERIOD_MS + SLOT_MS),
  fc.integer({ min: 0, max: 500 }),
  fc.integer({ min: 0, max: 5_000 }),
  fc.integer({ min: 0, max: 30_000 }),
);

const startArbitrary = fc.integer({ min: 0, max: 3 * SLOT_MS }).map((offset) => START + offset);


describe('sliding window maths', () => {
  it('should count the current slot and the 60 before it, and nothing older', () => {
    const slot = slotOf(START);
    const window = windowOf(slot, [
      [-61, 100],
      [-60, 1],
      [-30, 2],
      [0, 4],
    ]);
    expect(window).toMatchObject({ total: 7, oldest: slot - 60, newest: slot });
    // The slot 61 back was dropped for good, not just skipped.
    expect(window?.counts.has(slot - 61)).toBe(false);
    expect(currentWindow(window, slot + 1)).toMatchObject({ total: 6, oldest: slot - 30 });
    expect(slotLeavesAt(slot)).toBe(START + PERIOD_MS + SLOT_MS);
    expect(currentWindow(windowOf(slot, [[0, 4]]), slot + PAST_SLOTS)).toMatchObject({ total: 4 });
    expect(currentWindow(windowOf(slot, [[0, 4]]), slot + PAST_SLOTS + 1)).toBeUndefined();
  });

  it('should admit a full window at once, then nothing until its slot has left: 61 s later at the latest', () => {
    const limit = 5;
    const at = START + 400;
    const burst = Array.from({ length: limit + 1 }, () => ({ at, cost: 1 }));
    expect(simulate(limit, burst)).toHaveLength(limit);
    // The slot of `at` is [START, START + 1 s): it counts until START + 61 s, 60.6 s after `at`.
    const later = (offset: number) => simulate(limit, [...burst, { at: START + offset, cost: 1 }]).length;
    expect(later(60_999)).toBe(limit);
    expect(later(61_000)).toBe(limit + 1);
  });

  it('should give the exact wait: the refused cost fits retryAfterMs later and not a millisecond sooner', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000 }),
        fc.array(fc.tuple(fc.integer({ min: -PAST_SLOTS, max: 0 }), fc.integer({ min: 1, max: 400 })), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 0, max: SLOT_MS - 1 }),
        fc.integer({ min: 0, max: 1_000 }),
        (limit, charges, offset, cost) => {
          const slot = slotOf(START);
          const now = START + offset;
          const sorted = [...charges].sort(([a], [b]) => a - b);
          const wait = waitForRoom(windowOf(slot, sorted), limit, cost, now);
          if (cost > limit) {
            expect(wait).toBe(NEVER);
            return;
          }
          fc.pre(wait !== 0);
          expect(wait).toBeGreaterThan(0);
          expect(wait).toBeLessThanOrEqual(PERIOD_MS + SLOT_MS);
          const fitsAt = (at: number) => waitForRoom(currentWindow(windowOf(slot, sorted), slotOf(at)), limit, cost, at) === 0;
          expect(fitsAt(now + wait)).toBe(true);
          expect(fitsAt(now + wait - 1)).toBe(false);
        },
      ),
    );
  });

  it('should never admit a cost larger than the limit, or anything under a limit of 0, and say waiting will not help', () => {
    expect(waitForRoom(undefined, 100, 101, START)).toBe(NEVER);
    expect(waitForRoom(undefined, 0, 0, START)).toBe(NEVER);
    expect(waitForRoom(undefined, 100, 100, START)).toBe(0);
  });

  it('should report what is left and when the newest charged slot leaves, for the headers', () => {
    const slot = slotOf(START);
    const now = START + 250;
    expect(describeWindow(60, 0, undefined, now)).toEqual({ limit: 60, remaining: 60, resetMs: 0 });
    const window = windowOf(slot, [
      [-59, 20],
      [-10, 30],
    ]);
    // Everything counted is gone once slot - 10 has left: at (slot - 10 + 61) s.
    expect(describeWindow(60, window?.total ?? 0, window?.newest, now)).toEqual({ limit: 60, remaining: 10, resetMs: 51_000 - 250 });
    expect(currentWindow(window, slotOf(now + 51_000 - 250 - 1))).toBeDefined();
    expect(currentWindow(window, slotOf(now + 51_000 - 250))).toBeUndefined();
    // Debt from a reconcile leaves nothing, not a negative count.
    expect(describeWindow(60, 75, slot, now).remaining).toBe(0);
  });

  it('should give units back only to the slot they were reserved in, never below 0, and only while it counts', () => {
    const slot = slotOf(START);
    const build = () =>
      windowOf(slot, [
        [-60, 100],
        [-20, 50],
        [0, 10],
      ]);
    // Partly, from a middle slot.
    expect(refundWindow(build(), slot, slot - 20, 30)).toMatchObject({ total: 130, oldest: slot - 60, newest: slot });
    // Whole: the slot goes, and the oldest or newest moves to the next slot present.
    expect(refundWindow(build(), slot, slot - 60, 500)).toMatchObject({ total: 60, oldest: slot - 20, newest: slot });
    expect(refundWindow(build(), slot, slot, 10)).toMatchObject({ total: 150, oldest: slot - 60, newest: slot - 20 });
    expect(refundWindow(windowOf(slot, [[0, 10]]), slot, slot, 10)).toBeUndefined();
    // A reservation whose slot has left, one from a slot with nothing left in it, or one from
    // the future (a clock that stepped back) gives nothing back to any other slot.
    expect(refundWindow(currentWindow(build(), slot + 1), slot + 1, slot - 60, 100)).toMatchObject({ total: 60 });
    expect(refundWindow(build(), slot, slot - 61, 100)).toMatchObject({ total: 160 });
    expect(refundWindow(build(), slot, slot - 5, 100)).toMatchObject({ total: 160 });
    expect(refundWindow(build(), slot, slot + 1, 100)).toMatchObject({ total: 160 });
  });

  it('should charge units to the current slot and keep the summary exact', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(gapArbitrary, fc.integer({ min: 1, max: 50 }))), (steps) => {
        let at = START;
        let window: SlotWindow | undefined;
        for (const [gap, units] of steps) {
          at += gap;
          window = chargeWindow(currentWindow(window, slotOf(at)), slotOf(at), units);
          const slots = [...window.counts.keys()];
          expect(window.total).toBe([...window.counts.values()].reduce((sum, count) => sum + count, 0));
          expect(window.oldest).toBe(Math.min(...slots));
          expect(window.newest).toBe(Math.max(...slots));
          expect(window.oldest).toBeGreaterThanOrEqual(slotOf(at) - PAST_SLOTS);
        }
      }),
    );
  });
});

describe('the limit holds in every 60 s window (memory limiter, injected clock)', () => {
  it('should never admit more than rpm requests or tpm tokens in any 60 s window, for any arrivals', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 1_000 }),
        startArbitrary,
        fc.array(fc.record({ gap: gapArbitrary, cost: fc.integer({ min: 0, max: 400 }) }), { maxLength: 150 }),
        async (rpm, tpm, start, steps) => {
          let now = start;
          const limiter = createMemoryLimiter({ now: () => now });
          onTestFinished(() => limiter.close());
          const admitted: Arrival[] = [];
          for (const { gap, cost } of steps) {
            now += gap;
            const result = await limiter.admit({ tenantId: 't', keyId: 'k', requestId: `r${now}`, tenantLimits: { rpm, tpm }, keyLimits: {}, estimatedTokens: cost });
            if (result.allowed) {
              admitted.push({ at: now, cost });
              continue;
            }
            // The price of the guarantee, bounded: a refusal is always justified by what was
            // admitted within at most 61 s before it (the oldest counted slot's start), never older.
            const since = (slotOf(now) - PAST_SLOTS) * SLOT_MS;
            const recent = admitted.filter((arrival) => arrival.at >= since);
            const justified = recent.length + 1 > rpm || recent.reduce((sum, arrival) => sum + arrival.cost, 0) + cost > tpm;
            expect(justified).toBe(true);
          }
          expect(heaviestMinute(admitted, (arrival) => arrival.at, () => 1)).toBeLessThanOrEqual(rpm);
          expect(heaviestMinute(admitted, (arrival) => arrival.at, (arrival) => arrival.cost)).toBeLessThanOrEqual(tpm);
          await limiter.close();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('should let no negative reconcile push the tokens really used in any 60 s window over the limit', async () => {
    // Every admitted request is reconciled once, some time after its admission, to an actual
    // usage between none and 1.5 × its estimate. Underestimates are charged when they become
    // known, so a window can exceed the limit by them (the issue allows one request's estimate
    // error); what must hold is that tokens given back never make room for more than the
    // limit: the estimates, less what was given back, never exceed it in any window.
    // A give-back to a later slot than the reservation's shows only in rare histories (that
    // slot must hold something already, and the minute must fill up after the reservation's
    // slot left): limiter.test.ts pins one down; this explores the rest.
    const arrivalArbitrary = fc.record({
      gap: gapArbitrary,
      cost: fc.integer({ min: 0, max: 400 }),
      usedPercent: fc.oneof(fc.constantFrom(0, 50, 100), fc.integer({ min: 0, max: 150 })),
      // Answers end from at once to well after the reservation's slot has left the window.
      answerMs: fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 40_000 }), fc.integer({ min: 0, max: 90_000 })),
      withAdmittedAt: fc.oneof(fc.constant(true), fc.boolean()),
    });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1_000 }), startArbitrary, fc.array(arrivalArbitrary, { maxLength: 120 }), async (tpm, start, arrivals) => {
        let now = start;
        const limiter = createMemoryLimiter({ now: () => now });
        onTestFinished(() => limiter.close());
        const limits = { tenantId: 't', keyId: 'k', tenantLimits: { tpm }, keyLimits: {} };
        interface Admitted {
          at: number;
          cost: number;
          admittedAt: number | undefined;
          endsAt: number;
          delta: number;
          withAdmittedAt: boolean;
          reconciled: boolean;
        }
        const admitted: Admitted[] = [];
        /** Reconciles, in the order their answers end, every request whose answer ended by `until`. */
        const answer = async (until: number) => {
          const due = admitted.filter((request) => !request.reconciled && request.endsAt <= until).sort((a, b) => a.endsAt - b.endsAt);
          for (const request of due) {
            request.reconciled = true;
            now = Math.max(now, request.endsAt);
            const { admittedAt } = request;
            await limiter.reconcile({ ...limits, deltaTokens: request.delta, ...(request.withAdmittedAt && admittedAt !== undefined && { admittedAt }) });
          }
        };
        let at = start;
        for (const { gap, cost, usedPercent, answerMs, withAdmittedAt } of arrivals) {
          at += gap;
          await answer(at);
          now = at;
          const result = await limiter.admit({ ...limits, requestId: `r${admitted.length}`, estimatedTokens: cost });
          if (!result.allowed) continue;
          const delta = Math.round((cost * usedPercent) / 100) - cost;
          admitted.push({ at, cost, admittedAt: result.admittedAt, endsAt: at + answerMs, delta, withAdmittedAt, reconciled: false });
        }
        for (const request of admitted) expect(request.admittedAt).toBe(request.at);
        // Answers still running at the end gave nothing back yet: their estimate is what counts.
        const kept = heaviestMinute(admitted, (request) => request.at, (request) => request.cost + (request.reconciled ? Math.min(0, request.delta) : 0));
        expect(kept).toBeLessThanOrEqual(tpm);
        await limiter.close();
      }),
      { numRuns: 1_000 },
    );
  });
});
