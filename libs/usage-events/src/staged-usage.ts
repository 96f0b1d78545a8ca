import type { UsageEvent } from './usage-event.ts';

/**
 * Where routers stage usage batches for the workers to move into the queue (the staging step
 * of docs/architecture.md, "Usage accounting"):
 *
 *   sy:{usage:<queue>}:staged   list     one entry per batch a router sent, a `UsageBatch` as
 *                                        JSON, oldest first (RPUSH by routers, LTRIM by movers)
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

export function encodeStagedBatch(events: readonly UsageEvent[]): string {
  return JSON.stringify({ events });
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
