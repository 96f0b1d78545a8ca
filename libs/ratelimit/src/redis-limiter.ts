import { Redis } from 'ioredis';
import { createTurnBatcher } from '@switchyard/redis-scripts';
import { bindRunBatch, decodeAdmitReply, encodeFlag, encodeLimits, encodeNow, operationKeys, runOperations, type LimiterOperation } from './commands.ts';
import { DEFAULT_LEASE_MS, STORE_RETRY_AFTER_MS } from './constants.ts';
import type { AdmissionRequest, AdmissionResult, Limiter, LimitScope, LimitSet, ReconcileRequest, RefusedLimit, ReleaseRequest } from './limiter.ts';
import { createCallBound } from './call-bound.ts';
import { createMemoryLimiter } from './memory-limiter.ts';
import { assertAdmittedAt, assertLimitSet, hasAnyLimit, hasBudget, tokenCost, tokenDelta } from './validate-request.ts';

export interface StoreFailurePolicy {
  /** RPM, TPM and concurrency: `open` answers from a per-process memory limiter, `closed` refuses. */
  rates: 'open' | 'closed';
  /** Daily and monthly budgets: `open` skips them, `closed` refuses requests that have one. */
  budgets: 'open' | 'closed';
}

export interface RedisLimiterOptions {
  url: string;
  /** Defaults to rates open (availability first), budgets closed (money first). */
  onStoreFailure?: Partial<StoreFailurePolicy>;
  /** Bound on every Redis call; past it the fallback answers. Default 250 ms. */
  timeoutMs?: number;
  /** Called on each transition between normal and degraded operation, for metrics and logs. */
  onDegraded?: (degraded: boolean, error?: unknown) => void;
  /** How long a concurrency slot is held without a release. Default 10 minutes. */
  concurrencyLeaseMs?: number;
  /** How long `ready()` waits for the first connection before the process serves anyway. Default 5 s. */
  startupWaitMs?: number;
}

const DEFAULT_TIMEOUT_MS = 250;
/** Long enough for a Redis that is starting beside us; short enough not to stall a rollout while it is down. */
const DEFAULT_STARTUP_WAIT_MS = 5_000;
/** How long ioredis keeps a command nobody waits for any more before dropping it. */
const COMMAND_BACKSTOP_MS = 5_000;

/**
 * Releases that failed are retried once Redis answers again, so an outage does not leave
 * tenants short of concurrency slots until the leases expire. Beyond this many, the leases
 * are left to expire.
 */
const MAX_PENDING_RELEASES = 10_000;

/**
 * Admission against Redis: one script operation checks and charges every limit of the tenant
 * and the key (lua/includes/admit.lua), with time from the server's clock so replicas agree;
 * the operations of a turn go to Redis together (createTurnBatcher). When Redis
 * fails or is slow, the store-failure policy answers instead, flagged `degraded`.
 */
export function createRedisLimiter(options: RedisLimiterOptions): Limiter {
  return buildRedisLimiter(options, undefined);
}

/**
 * For tests only, and deliberately not exported from the package: feeds fake time to the
 * scripts through their `now` argument, so their answers can be compared with the memory
 * limiter's for the same history.
 */
export function createRedisLimiterWithClock(options: RedisLimiterOptions, now: () => number): Limiter {
  return buildRedisLimiter(options, now);
}

/** What a store call resolves to when the store must not or could not answer. */
const FAILED = Symbol('failed');
type Failed = typeof FAILED;
/** What a call skipped while the store is known to be failing resolves to. */
const SKIPPED: Promise<Failed> = Promise.resolve(FAILED);

function buildRedisLimiter(options: RedisLimiterOptions, clock: (() => number) | undefined): Limiter {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const policy: StoreFailurePolicy = { rates: 'open', budgets: 'closed', ...options.onStoreFailure };
  const leaseMs = options.concurrencyLeaseMs ?? DEFAULT_LEASE_MS;
  const encodedLeaseMs = String(leaseMs);
  const startupWaitMs = options.startupWaitMs ?? DEFAULT_STARTUP_WAIT_MS;
  const fallback = createMemoryLimiter({ concurrencyLeaseMs: leaseMs, ...(clock && { now: clock }) });
  const pendingReleases = new Map<string, ReleaseRequest>();
  let degraded = false;
  /** After a failure, calls skip Redis until then: a black-holed server costs one timeout per probe, not one per request. */
  let skipStoreUntil = 0;
  let replaying: Promise<void> | undefined;

  const redis = new Redis(options.url, {
    // Only a backstop that frees commands a stalled server never answers: the bound callers
    // see is callStore's, which (unlike this timer) does not mistake a busy event loop for a slow server.
    commandTimeout: Math.max(COMMAND_BACKSTOP_MS, timeoutMs * 4),
    connectTimeout: Math.max(1_000, timeoutMs * 4),
    // Fail at once while disconnected instead of queueing: a queued admit would run after its
    // caller was already answered by the fallback, charging a request twice.
    enableOfflineQueue: false,
    // For the same reason, commands in flight when the connection drops fail instead of being resent.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    // Keep reconnecting, quickly, for as long as it takes: recovery is automatic.
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  const runBatch = bindRunBatch(redis);
  const withinBound = createCallBound(timeoutMs, () => new Error(`Redis did not answer within ${timeoutMs} ms`));
  // A turn's operations of one tenant go to Redis as one script call (createTurnBatcher), and
  // the bound is the call's: one timer entry a batch, not a race per operation.
  const run = createTurnBatcher<LimiterOperation, number[]>((operations) => withinBound(runOperations(runBatch, operations)));
  const firstReady = new Promise<void>((resolve) => redis.once('ready', () => resolve()));

  const setDegraded = (value: boolean, error?: unknown): void => {
    if (degraded === value) return;
    degraded = value;
    options.onDegraded?.(value, error);
  };
  const storeFailed = (error: unknown): void => {
    skipStoreUntil = Date.now() + Math.max(1_000, timeoutMs * 4);
    setDegraded(true, error);
  };
  redis.on('error', (error: unknown) => setDegraded(true, error));
  redis.on('ready', () => {
    skipStoreUntil = 0;
    setDegraded(false);
    if (pendingReleases.size > 0) replayReleases().catch(storeFailed);
  });

  const storeAnswered = (replies: number[]): number[] => {
    setDegraded(false);
    return replies;
  };
  const storeCallFailed = (error: unknown): Failed => {
    storeFailed(error);
    return FAILED;
  };

  /**
   * Runs an operation against Redis, or resolves to FAILED when the store must not or could not
   * answer. Up to three calls a request take the first path: the operation itself rather than a
   * closure that makes it, and a promise chain rather than an async function, whose own promise
   * and suspension were the largest part of the limiter's garbage per request
   * (docs/performance.md).
   */
  function callStore(tenantId: string, operation: LimiterOperation): Promise<number[] | Failed> {
    if (Date.now() < skipStoreUntil) return SKIPPED;
    if (redis.status !== 'ready' || pendingReleases.size > 0) return callStoreOnceReady(tenantId, operation);
    return run(tenantId, operation).then(storeAnswered, storeCallFailed);
  }

  async function callStoreOnceReady(tenantId: string, operation: LimiterOperation): Promise<number[] | Failed> {
    // Right after start the connection is still being made; without an offline queue a call
    // would fail, so the first calls wait for it, within the same bound.
    if (redis.status !== 'ready') await withinBound(firstReady).catch(() => undefined);
    try {
      // Slots released during the outage are freed first, so this very call can use them.
      if (pendingReleases.size > 0) await replayReleases();
      return storeAnswered(await run(tenantId, operation));
    } catch (error) {
      return storeCallFailed(error);
    }
  }

  /** Sent together (one batch); one replay at a time. */
  function replayReleases(): Promise<void> {
    replaying ??= Promise.all(
      [...pendingReleases].map(async ([requestId, request]) => {
        await sendRelease(request);
        pendingReleases.delete(requestId);
      }),
    )
      .then(() => undefined)
      .finally(() => {
        replaying = undefined;
      });
    return replaying;
  }

  function releaseOperation(request: ReleaseRequest): LimiterOperation {
    return { code: 'r', keys: operationKeys(request.tenantId, request.keyId).release, args: [request.requestId] };
  }

  function sendRelease(request: ReleaseRequest): Promise<number[]> {
    return run(request.tenantId, releaseOperation(request));
  }

  async function answerWithoutStore(request: AdmissionRequest): Promise<AdmissionResult> {
    if (policy.budgets === 'closed') {
      if (hasBudget(request.tenantLimits)) return refusedByOutage('budget', 'tenant');
      if (hasBudget(request.keyLimits)) return refusedByOutage('budget', 'key');
    }
    if (policy.rates === 'closed') {
      const refused = firstRateLimit(request.tenantLimits, 'tenant') ?? firstRateLimit(request.keyLimits, 'key');
      if (refused !== undefined) return refusedByOutage(refused.limit, refused.scope);
    }
    // Past this point budgets are open (or absent): the process cannot know what was spent, so it skips them.
    const { admittedAt: _reservedInThisProcessOnly, ...result } = await fallback.admit({
      ...request,
      tenantLimits: withoutBudgets(request.tenantLimits),
      keyLimits: withoutBudgets(request.keyLimits),
    });
    // Without admittedAt, the reconcile (in a router, against Redis) cannot give tokens back to
    // a Redis window slot that never held this reservation.
    return { ...result, degraded: true };
  }

  return {
    async admit(request: AdmissionRequest): Promise<AdmissionResult> {
      assertLimitSet(request.tenantLimits, 'tenant');
      assertLimitSet(request.keyLimits, 'key');
      const cost = tokenCost(request.estimatedTokens);
      // Nothing to check means nothing to ask the store, so an outage cannot degrade the answer.
      if (!hasAnyLimit(request.tenantLimits) && !hasAnyLimit(request.keyLimits)) {
        return { allowed: true, retryAfterMs: 0, degraded: false };
      }
      const tenantLimits = encodeLimits(request.tenantLimits);
      const keyLimits = encodeLimits(request.keyLimits);
      const outcome = await callStore(request.tenantId, {
        code: 'a',
        keys: operationKeys(request.tenantId, request.keyId).admit,
        // One array literal: spreading the two limit tuples in built an iterator and grew the array twice.
        args: [
          encodeNow(clock?.()),
          request.requestId,
          String(cost),
          encodedLeaseMs,
          tenantLimits[0],
          tenantLimits[1],
          tenantLimits[2],
          tenantLimits[3],
          tenantLimits[4],
          keyLimits[0],
          keyLimits[1],
          keyLimits[2],
          keyLimits[3],
          keyLimits[4],
        ],
      });
      if (outcome === FAILED) return answerWithoutStore(request);
      return decodeAdmitReply(outcome);
    },

    async release(request: ReleaseRequest): Promise<void> {
      // Sent before anything is awaited, so that it takes its place in this turn's batch in the
      // order it was called, before an admission called after it that its slot may let in.
      const outcome = callStore(request.tenantId, releaseOperation(request));
      await fallback.release(request);
      if ((await outcome) === FAILED && pendingReleases.size < MAX_PENDING_RELEASES) pendingReleases.set(request.requestId, request);
    },

    async reconcile(request: ReconcileRequest): Promise<void> {
      assertLimitSet(request.tenantLimits, 'tenant');
      assertLimitSet(request.keyLimits, 'key');
      assertAdmittedAt(request.admittedAt);
      const delta = tokenDelta(request.deltaTokens);
      if (delta === 0) return;
      const outcome = await callStore(request.tenantId, {
        code: 'c',
        keys: operationKeys(request.tenantId, request.keyId).reconcile,
        args: [
          encodeNow(clock?.()),
          String(delta),
          request.admittedAt === undefined ? '' : String(request.admittedAt),
          encodeFlag(request.tenantLimits.tpm !== undefined),
          encodeFlag(hasBudget(request.tenantLimits)),
          encodeFlag(request.keyLimits.tpm !== undefined),
          encodeFlag(hasBudget(request.keyLimits)),
        ],
      });
      // Lost for Redis (the caller has nothing better to do with it). The fallback's token
      // windows learn the real usage only where one process both admits and reconciles (`all`):
      // in split mode the router reconciles while the ingresses' fallbacks admit, so theirs count
      // estimates alone (docs/limits.md, Redis outages). The fallback's windows hold no
      // reservation made on Redis, so nothing is given back to them.
      if (outcome === FAILED) {
        const { admittedAt: _reservedInRedis, ...rest } = request;
        await fallback.reconcile({ ...rest, tenantLimits: withoutBudgets(request.tenantLimits), keyLimits: withoutBudgets(request.keyLimits) });
      }
    },

    ready: () => createCallBound(startupWaitMs, () => new Error('Redis not ready'))(firstReady).catch(() => undefined),

    async close(): Promise<void> {
      await fallback.close();
      try {
        await redis.quit();
      } catch {
        // Already unreachable: nothing left to say goodbye to.
        redis.disconnect();
      }
    },
  };
}

function refusedByOutage(limit: RefusedLimit, scope: LimitScope): AdmissionResult {
  return { allowed: false, limit, scope, retryAfterMs: STORE_RETRY_AFTER_MS, degraded: true };
}

function firstRateLimit(limits: LimitSet, scope: LimitScope): { limit: RefusedLimit; scope: LimitScope } | undefined {
  if (limits.rpm !== undefined) return { limit: 'requests', scope };
  if (limits.tpm !== undefined) return { limit: 'tokens', scope };
  if (limits.concurrency !== undefined) return { limit: 'concurrency', scope };
  return undefined;
}

function withoutBudgets({ rpm, tpm, concurrency }: LimitSet): LimitSet {
  return { ...(rpm !== undefined && { rpm }), ...(tpm !== undefined && { tpm }), ...(concurrency !== undefined && { concurrency }) };
}
