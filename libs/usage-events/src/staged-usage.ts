import type { UsageEvent } from './usage-event.ts';

/**
 * Where routers stage usage batches for the workers to move into the queue (the staging step
 * of docs/architecture.md, "Usage accounting"):
 *
 *   sy:{usage:<queue>}:staged   list     one entry per batch a router sent, oldest first (RPUSH
 *                                        by routers, LTRIM by movers): a `UsageBatch` as JSON
 *                                        that leads with its event count, `{"count":N,"events":[…]}`
 *   sy:{usage:<queue>}:mover    string   the lock of the one mover at work: a random token with
 *                                        a lease, so a crashed mover is replaced within it
 *
 * Both share a hash tag, so the movers' scripts touch one Redis Cluster slot.
 */
export interface StagedUsageKeys {
  list: string;
  lock: string;
}

export function stagedUsageKeys(queueName: string): StagedUsageKeys {
  const prefix = `sy:{usage:${queueName}}`;
  return { list: `${prefix}:staged`, lock: `${prefix}:mover` };
}

/**
 * The count leads so that a mover can carry the events' text into a job without parsing it
 * (readStagedEvents); a reader that parses (an older mover) still finds `events`.
 */
export function encodeStagedBatch(events: readonly UsageEvent[]): string {
  return JSON.stringify({ count: events.length, events });
}

/**
 * The events of a staged entry, unchecked (the worker's processor validates each one), or
 * undefined for an entry that is no batch: nothing but a router writes the list, so that is
 * a foreign writer or a corrupted entry.
 */
export function decodeStagedBatch(entry: string): unknown[] | undefined {
  let events: unknown;
  try {
    events = (JSON.parse(entry) as { events?: unknown } | null)?.events;
  } catch {
    return undefined;
  }
  return Array.isArray(events) ? events : undefined;
}

/** A staged batch as a mover carries it on: its events' JSON, without the array's brackets. */
export interface StagedEvents {
  count: number;
  json: Buffer;
}

const COUNT_HEAD = Buffer.from('{"count":');
const EVENTS_HEAD = Buffer.from(',"events":[');
const EVENTS_TAIL = Buffer.from(']}');
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/**
 * The events of a staged entry as bytes, read from the frame encodeStagedBatch writes: a slice
 * of the entry, not a copy, and no parse, since the worker's processor parses and checks each
 * event anyway. An entry without the frame (from a router older than it) is parsed instead.
 * Undefined for an entry that is no batch of at least one event.
 */
export function readStagedEvents(entry: Buffer): StagedEvents | undefined {
  if (entry.length > COUNT_HEAD.length + EVENTS_HEAD.length + EVENTS_TAIL.length && entry.subarray(0, COUNT_HEAD.length).equals(COUNT_HEAD)) {
    let end = COUNT_HEAD.length;
    let count = 0;
    for (let byte = entry[end]; byte !== undefined && byte >= DIGIT_0 && byte <= DIGIT_9; byte = entry[++end]) count = count * 10 + byte - DIGIT_0;
    const first = end + EVENTS_HEAD.length;
    const last = entry.length - EVENTS_TAIL.length;
    if (
      count > 0 &&
      first < last &&
      entry.subarray(end, first).equals(EVENTS_HEAD) &&
      entry.subarray(last).equals(EVENTS_TAIL)
    ) {
      return { count, json: entry.subarray(first, last) };
    }
  }
  const events = decodeStagedBatch(entry.toString());
  if (events === undefined || events.length === 0) return undefined;
  return { count: events.length, json: Buffer.from(JSON.stringify(events).slice(1, -1)) };
}
