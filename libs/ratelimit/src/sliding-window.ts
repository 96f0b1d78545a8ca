import { EXPIRY_MARGIN_MS, PERIOD_MS } from './constants.ts';
import type { WindowState } from './limiter.ts';

/**
 * A bucketed sliding window, strict: it never admits more than `limit` in any 60 s window.
 * lua/includes/sliding-window.lua mirrors it; the equivalence test in redis-limiter.test.ts
 * holds the two together.
 *
 * Time is cut into slots of SLOT_MS; slot `s` covers [s·SLOT_MS, (s+1)·SLOT_MS). At a moment in
 * slot `c`, the window counts the units charged in slots c-60 … c (61 slots). Every real window
 * (t-60000, t] with t in slot c starts inside slot c-60, so those 61 slots hold at least what
 * the real window holds; admitting only when counted + cost ≤ limit therefore keeps every 60 s
 * window that ends at an admission — hence every 60 s window — at or below `limit`.
 *
 * The price is conservatism: the oldest slot is counted whole although part of it already lies
 * outside the real window, so a perfectly steady client gets up to 1/60 less than the limit.
 *
 * Units are whole: a request or a token. Slot indices, counts and times are integers below
 * 2^53, exact in doubles in TypeScript and in Lua alike.
 */

export const SLOT_MS = 1_000;

/** Slots before the current one that still count: the window is these and the current one. */
export const PAST_SLOTS = PERIOD_MS / SLOT_MS;

/**
 * How long a window outlives its last charge: by then its newest slot has left (at most
 * PERIOD_MS + SLOT_MS later), plus the margin that covers clocks disagreeing a little.
 */
export const WINDOW_TTL_MS = PERIOD_MS + SLOT_MS + EXPIRY_MARGIN_MS;

/** A request that can never fit (cost above the limit, or a limit of 0): no wait helps. */
export const NEVER = Number.POSITIVE_INFINITY;

/**
 * The units charged to one scope's window. `total`, `oldest` and `newest` summarise `counts`
 * so that admission costs O(1) and only pruning or a refusal walks the slots.
 */
export interface SlotWindow {
  /** Absolute slot index → units charged in it; every value is > 0 (an emptied slot is deleted). */
  counts: Map<number, number>;
  /** Sum of `counts`. */
  total: number;
  /** Smallest and largest slot index present. */
  oldest: number;
  newest: number;
}

export function slotOf(at: number): number {
  return Math.floor(at / SLOT_MS);
}

/** When `slot` stops counting: once the current slot is `slot + PAST_SLOTS + 1`. */
export function slotLeavesAt(slot: number): number {
  return (slot + PAST_SLOTS + 1) * SLOT_MS;
}

/**
 * The window as it counts in `slot`: slots that have left are dropped (in place). Undefined when
 * nothing is left, or for a scope never seen.
 */
export function currentWindow(window: SlotWindow | undefined, slot: number): SlotWindow | undefined {
  if (window === undefined) return undefined;
  const first = slot - PAST_SLOTS;
  if (window.newest < first) return undefined;
  if (window.oldest < first) {
    const { counts } = window;
    for (let stale = window.oldest; stale < first; stale += 1) {
      const count = counts.get(stale);
      if (count !== undefined) {
        window.total -= count;
        counts.delete(stale);
      }
    }
    // `newest` is present and ≥ first, so this stops there at the latest.
    let oldest = first;
    while (!counts.has(oldest)) oldest += 1;
    window.oldest = oldest;
  }
  return window;
}

/**
 * 0 when `cost` fits now; NEVER when it cannot fit in any window; otherwise the exact wait, in
 * ms, until enough of the oldest slots have left for it to fit, were nothing else to happen.
 * `window` must be current (see currentWindow).
 */
export function waitForRoom(window: SlotWindow | undefined, limit: number, cost: number, now: number): number {
  if (limit === 0 || cost > limit) return NEVER;
  const total = window?.total ?? 0;
  if (window === undefined || total + cost <= limit) return 0;
  const excess = total + cost - limit;
  let freed = 0;
  for (let slot = window.oldest; slot <= window.newest; slot += 1) {
    freed += window.counts.get(slot) ?? 0;
    if (freed >= excess) return slotLeavesAt(slot) - now;
  }
  // Unreachable while `total` is the sum of the slots (then freeing them all leaves cost ≤ limit).
  return slotLeavesAt(window.newest) - now;
}

/**
 * The window for the `x-ratelimit-*` headers: units left, and the time until the newest
 * charged slot has left (then the whole limit is free again). `newest` is undefined when empty.
 */
export function describeWindow(limit: number, total: number, newest: number | undefined, now: number): WindowState {
  return { limit, remaining: Math.max(0, limit - total), resetMs: newest === undefined ? 0 : slotLeavesAt(newest) - now };
}

/** Adds `amount` (> 0) units to `slot`, creating the window if needed. `window` must be current. */
export function chargeWindow(window: SlotWindow | undefined, slot: number, amount: number): SlotWindow {
  if (window === undefined) return { counts: new Map([[slot, amount]]), total: amount, oldest: slot, newest: slot };
  window.counts.set(slot, (window.counts.get(slot) ?? 0) + amount);
  window.total += amount;
  // Time only moves forward on one clock, but a store's clock may step back (failover): stay a true min/max.
  if (slot < window.oldest) window.oldest = slot;
  if (slot > window.newest) window.newest = slot;
  return window;
}

/**
 * Gives `amount` (> 0) units back to the slot where they were reserved, `admittedSlot`, if it
 * still counts at `slot`; never more than that slot holds. Giving them to any later slot would
 * under-count once the reservation's own slot leaves the window, so a reservation whose slot
 * has already left gives nothing back. Returns the window, undefined once empty. `window` must
 * be current.
 */
export function refundWindow(window: SlotWindow | undefined, slot: number, admittedSlot: number, amount: number): SlotWindow | undefined {
  if (window === undefined || admittedSlot < slot - PAST_SLOTS || admittedSlot > slot) return window;
  const count = window.counts.get(admittedSlot);
  if (count === undefined) return window;
  const given = Math.min(count, amount);
  window.total -= given;
  if (given < count) {
    window.counts.set(admittedSlot, count - given);
    return window;
  }
  window.counts.delete(admittedSlot);
  if (window.counts.size === 0) return undefined;
  while (!window.counts.has(window.oldest)) window.oldest += 1;
  while (!window.counts.has(window.newest)) window.newest -= 1;
  return window;
}
