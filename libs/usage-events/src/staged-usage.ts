import type { UsageBatch, UsageEvent } from './usage-event.ts';

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
  const batch: { events: readonly UsageEvent[] } = { events };
  return JSON.stringify(batch);
}

/**
 * The events of a staged entry, unchecked (the worker's processor validates each one), or
 * undefined for an entry that is no batch: nothing but a router writes the list, so that is
 * a foreign writer or a corrupted entry.
 */
export function decodeStagedBatch(entry: string): unknown[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(entry);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || !Array.isArray((parsed as Partial<UsageBatch>).events)) return undefined;
  return (parsed as { events: unknown[] }).events;
}
