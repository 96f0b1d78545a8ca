// lua/includes/constants.lua mirrors the first three; the Lua-versus-TypeScript equivalence
// test fails if they drift apart.

/** Every rate limit here is per minute. */
export const PERIOD_MS = 60_000;

/**
 * A key outlives the moment its state stops mattering by this much, so a read never misses
 * state the maths still needs when the clock that expires keys and the clock the maths uses
 * disagree a little (a replica promoted during failover, fake time in tests).
 */
export const EXPIRY_MARGIN_MS = PERIOD_MS;

/**
 * Suggested wait after a concurrency refusal. The exact wait is unknowable (a slot frees when
 * some other request ends), and the lease expiry is minutes away, far too long to suggest.
 */
export const CONCURRENCY_RETRY_AFTER_MS = 1_000;

/** Suggested wait after a refusal because the store is unreachable under the closed policy. */
export const STORE_RETRY_AFTER_MS = 1_000;

/**
 * How long a concurrency slot is held without a release. An ingress that crashes never
 * releases its slots; they expire after this. Longer than any sane request, including long streams.
 */
export const DEFAULT_LEASE_MS = 10 * 60_000;

/**
 * The largest limit accepted. Window slots count whole units (sliding-window.ts) and must stay
 * exact doubles in TypeScript and Lua and fit Redis HINCRBY's 64-bit integers: a full window
 * plus any realistic reconcile debt stays many orders of magnitude below 2^53.
 */
export const MAX_LIMIT = 1_000_000_000;
