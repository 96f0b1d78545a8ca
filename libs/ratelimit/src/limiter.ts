/**
 * Limits of one scope (a tenant, or one of its API keys). A missing limit is not enforced; 0
 * refuses everything. Read-only: the Redis limiter encodes each set once and keeps that (the
 * catalog's sets are made anew with each version, never changed).
 */
export interface LimitSet {
  /** Requests per minute. */
  readonly rpm?: number;
  /** Tokens per minute (estimated at admission, corrected by `reconcile`). */
  readonly tpm?: number;
  /** Requests in flight at once. */
  readonly concurrency?: number;
  /** Tokens per UTC day. */
  readonly dailyTokens?: number;
  /** Tokens per UTC calendar month. */
  readonly monthlyTokens?: number;
}

export interface AdmissionRequest {
  tenantId: string;
  keyId: string;
  /** Unique per request: the concurrency slot is held under this id until `release`. */
  requestId: string;
  /** Both scopes are enforced; each limit is optional. */
  tenantLimits: LimitSet;
  keyLimits: LimitSet;
  /** Reserved against TPM and budgets now, corrected by `reconcile` once real usage is known. */
  estimatedTokens: number;
}

/** One rate window as the `x-ratelimit-*` headers describe it. */
export interface WindowState {
  limit: number;
  /** Whole units that could be admitted right now. */
  remaining: number;
  /** Milliseconds until everything now counted has left the window (the whole limit is free again); 0 when empty. */
  resetMs: number;
}

export type RefusedLimit = 'requests' | 'tokens' | 'concurrency' | 'budget';
export type LimitScope = 'tenant' | 'key';

export interface AdmissionResult {
  allowed: boolean;
  /** Which limit refused: the one whose wait is longest, since the request needs all of them. */
  limit?: RefusedLimit;
  scope?: LimitScope;
  /**
   * 0 when allowed. Otherwise the time until the refusing limits would admit this request if
   * nothing else happened: exact for requests, tokens and budgets; for concurrency and for a
   * store outage it is a fixed hint, because a slot frees only when some request ends.
   */
  retryAfterMs: number;
  /**
   * Set when the request alone is larger than the refusing limit (estimated tokens above the
   * TPM or the budget, or a limit of 0): waiting never helps, so `retryAfterMs` is 0 and the
   * answer should tell the client not to retry.
   */
  exceedsLimit?: boolean;
  /** For the `x-ratelimit-*` headers: the tighter of the tenant and key windows. */
  requests?: WindowState;
  tokens?: WindowState;
  /**
   * When the request was admitted, in ms on the clock of the store that charged it (Redis `TIME`,
   * or the memory limiter's clock). Present only on admissions that store decided: hand it back
   * in `ReconcileRequest.admittedAt` so that tokens estimated too high can be given back to the
   * slot they were reserved in. Absent on refusals and on degraded answers (the fallback's
   * reservation lives in another process's memory, which the reconcile cannot reach).
   */
  admittedAt?: number;
  /** Answered by the fallback because the store failed. */
  degraded: boolean;
}

export interface ReleaseRequest {
  tenantId: string;
  keyId: string;
  requestId: string;
}

export interface ReconcileRequest {
  tenantId: string;
  keyId: string;
  tenantLimits: LimitSet;
  keyLimits: LimitSet;
  /**
   * Actual minus estimated tokens. Positive: charged to the token windows now. Negative: given
   * back to the window slot the reservation was made in, if `admittedAt` says which one and that
   * slot still counts; otherwise the windows keep the estimate (budgets are corrected either way).
   */
  deltaTokens: number;
  /** `AdmissionResult.admittedAt` of the request being reconciled, when known. */
  admittedAt?: number;
}

export interface Limiter {
  admit(request: AdmissionRequest): Promise<AdmissionResult>;
  /** Frees the concurrency slot (client response ended or client went away). Idempotent. */
  release(request: ReleaseRequest): Promise<void>;
  /** Charges actual - estimated tokens to TPM and budgets once the answer's real usage is known (can be negative, see ReconcileRequest). */
  reconcile(request: ReconcileRequest): Promise<void>;
  /**
   * Resolves once the store has answered for the first time, or once waiting longer would not
   * help (the store-failure policy answers meanwhile). A process reports ready only after it,
   * so its first requests are not all answered by a per-process fallback just because its
   * connection was still being made.
   */
  ready(): Promise<void>;
  close(): Promise<void>;
}
