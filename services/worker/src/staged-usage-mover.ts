import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { loadScript } from '@switchyard/redis-scripts';
import { readStagedEvents, stagedUsageKeys, USAGE_BATCH_JOB_NAME, USAGE_JOB_OPTIONS, usageBatchJobId } from '@switchyard/usage-events';
import type { Redis, Result } from 'ioredis';
import type { EncodedDataQueue } from './encoded-data-queue.ts';
import type { WorkerLogger } from './worker-logger.ts';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /**
     * lua/claim-staged-2.lua, defined as `switchyardClaimStaged` (ioredis adds this variant, whose
     * replies stay Buffers): the oldest entries with the lock, [] when none, null while locked.
     */
    switchyardClaimStagedBuffer(list: string, lock: string, token: string, leaseMs: number, maxEntries: number): Result<Buffer[] | null, Context>;
    /** lua/finish-move-2.lua: 1 when trimmed and unlocked, 0 when the lock was lost. */
    switchyardFinishMove(list: string, lock: string, token: string, moved: number): Result<number, Context>;
  }
}

export interface StagedUsageMoverOptions {
  /**
   * The connection for the moves, the queue's too (see startWorker): its calls must fail rather
   * than wait forever (a finite `maxRetriesPerRequest`, a `commandTimeout`), or a move, and so
   * close(), could hang on an unreachable Redis. The mover does not close it.
   */
  redis: Redis;
  /** The queue the jobs go to; the staged list is named after it. */
  queue: EncodedDataQueue;
  logger: WorkerLogger;
  /** Most events in one job. Default 500: the aggregator records up to 500 in one script call. */
  maxEventsPerJob?: number;
  /** Wait after a move that emptied the list. Default 100 ms: how late usage may be counted. */
  idleDelayMs?: number;
  /** How long a mover holds the lock; a crashed mover's successor waits this long. Default 5 s. */
  leaseMs?: number;
}

export interface StagedUsageMover {
  /** Batches staged and not yet moved. */
  stagedBatches(): Promise<number>;
  /** Stops after the move in progress (it finishes, so nothing it read is left half moved). */
  close(): Promise<void>;
}

const LUA_DIRECTORY = join(import.meta.dirname, 'lua');
/** Entries read per claim: a router's batch holds up to 200 events, most hold far fewer. */
const MAX_ENTRIES_PER_CLAIM = 100;
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 10_000;
/** A job's data is a `UsageBatch`: the staged batches' events in one array. */
const JOB_HEAD = Buffer.from('{"events":[');
const COMMA = Buffer.from(',');
const JOB_TAIL = Buffer.from(']}');

/**
 * Moves the batches routers staged in Redis (`@switchyard/usage-events` staged-usage.ts) into
 * BullMQ jobs of up to `maxEventsPerJob` events, so that a job's fixed cost is shared by
 * hundreds of requests instead of the few that ended during one router's round trip. The
 * events travel as the bytes routers staged, joined, not parsed here (but those of routers
 * older than the staged count). Every
 * worker runs one; a lock with a lease lets one move at a time, since a move reads the head of
 * the list and then trims it.
 *
 * A move: claim (take the lock, read the oldest entries), add one job whose id comes from what
 * it carries, then trim what it carried and let go (one script, only while the lock is still
 * this mover's). A mover that dies after the add leaves the entries staged; its successor moves
 * them again as a job of the same id, which BullMQ ignores while the first is kept (an hour),
 * and the aggregator's markers count each request once after that.
 */
export function startStagedUsageMover(options: StagedUsageMoverOptions): StagedUsageMover {
  const { redis, queue, logger } = options;
  const maxEvents = options.maxEventsPerJob ?? 500;
  const idleDelayMs = options.idleDelayMs ?? 100;
  const leaseMs = options.leaseMs ?? 5_000;
  const keys = stagedUsageKeys(queue.name);
  redis.defineCommand('switchyardClaimStaged', loadScript(LUA_DIRECTORY, 'claim-staged-2.lua'));
  redis.defineCommand('switchyardFinishMove', loadScript(LUA_DIRECTORY, 'finish-move-2.lua'));

  let closed = false;
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = undefined;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
    });

  /** One move; true when more may be waiting. */
  async function moveOnce(): Promise<boolean> {
    const token = randomUUID();
    const entries = await redis.switchyardClaimStagedBuffer(keys.list, keys.lock, token, leaseMs, MAX_ENTRIES_PER_CLAIM);
    if (entries === null || entries.length === 0) return false;
    let moved = 0;
    let ended = false;
    try {
      const parts: Buffer[] = [JOB_HEAD];
      let events = 0;
      for (const entry of entries) {
        const batch = readStagedEvents(entry);
        if (batch === undefined) {
          logger.error({ queue: queue.name, entryBytes: entry.length }, 'staged usage entry is no batch: dropped');
        } else {
          // A job never goes past its bound, but always carries at least one batch.
          if (events > 0 && events + batch.count > maxEvents) break;
          if (events > 0) parts.push(COMMA);
          parts.push(batch.json);
          events += batch.count;
        }
        moved++;
      }
      if (events > 0) {
        parts.push(JOB_TAIL);
        const data = Buffer.concat(parts);
        await queue.addEncoded(USAGE_BATCH_JOB_NAME, data, { ...USAGE_JOB_OPTIONS, jobId: usageBatchJobId(data) });
      }
      // Stopped by the job's bound or the claim's: more may be waiting.
      const more = moved < entries.length || entries.length === MAX_ENTRIES_PER_CLAIM;
      const finished = await redis.switchyardFinishMove(keys.list, keys.lock, token, moved);
      ended = true;
      if (finished === 0) logger.warn({ queue: queue.name, leaseMs }, 'staged usage move outlived its lease: the next move repeats it');
      return more;
    } finally {
      // A failed move lets go of the lock at once and trims nothing: its entries are moved again.
      if (!ended) await redis.switchyardFinishMove(keys.list, keys.lock, token, 0).catch(() => undefined);
    }
  }

  const running = (async () => {
    let retryMs = 0;
    while (!closed) {
      try {
        const more = await moveOnce();
        retryMs = 0;
        if (!more) await pause(idleDelayMs);
      } catch (error) {
        // Backing off, an outage costs a log line every 10 s, not every second.
        retryMs = Math.min(Math.max(retryMs * 2, RETRY_MIN_MS), RETRY_MAX_MS);
        logger.warn({ err: error, queue: queue.name, retryInMs: retryMs }, 'staged usage move failed, will retry');
        await pause(retryMs);
      }
    }
  })();

  return {
    stagedBatches: () => redis.llen(keys.list),
    async close() {
      closed = true;
      wake?.();
      await running;
    },
  };
}
