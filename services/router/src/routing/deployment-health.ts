/** Circuit state of one deployment, as the `switchyard_circuit_state` gauge reports it. */
export const CIRCUIT = { closed: 0, open: 1, halfOpen: 2 } as const;
export type CircuitState = (typeof CIRCUIT)[keyof typeof CIRCUIT];

interface Entry {
  inflight: number;
  /** Requests started in the current one-minute window, for per-deployment rpm capacity. */
  windowStart: number;
  windowCount: number;
  /** Exponentially weighted time to first byte, ms; undefined until measured. */
  latencyMs: number | undefined;
  consecutiveFailures: number;
  cooldownUntil: number;
  state: CircuitState;
  /** The circuit opened on a 429: the deployment is rate limited, not broken. */
  rateLimited: boolean;
}

export interface CircuitPolicy {
  failureThreshold?: number;
  cooldownMs?: number;
}

export interface DeploymentHealthOptions {
  /** Consecutive failures that open the circuit. */
  failureThreshold?: number;
  /** How long an open circuit skips the deployment before one probe is let through. */
  cooldownMs?: number;
  /** Weight of the newest latency sample in the moving average. */
  latencyWeight?: number;
  onStateChange?: (key: string, state: CircuitState) => void;
  now?: () => number;
}

/**
 * Per-deployment health in this router process: in-flight count, latency average and a
 * circuit breaker. After `failureThreshold` consecutive failures, or at once on a 429, the
 * deployment is skipped for a cooldown (at least the upstream's retry-after); then a single
 * probe request is let through — success closes the circuit, failure opens it again.
 */
export class DeploymentHealth {
  readonly #entries = new Map<string, Entry>();
  readonly #failureThreshold: number;
  readonly #cooldownMs: number;
  readonly #latencyWeight: number;
  readonly #onStateChange: ((key: string, state: CircuitState) => void) | undefined;
  readonly #now: () => number;

  constructor(options: DeploymentHealthOptions = {}) {
    this.#failureThreshold = options.failureThreshold ?? 3;
    this.#cooldownMs = options.cooldownMs ?? 30_000;
    this.#latencyWeight = options.latencyWeight ?? 0.3;
    this.#onStateChange = options.onStateChange;
    this.#now = options.now ?? Date.now;
  }

  #entry(key: string): Entry {
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = { inflight: 0, windowStart: 0, windowCount: 0, latencyMs: undefined, consecutiveFailures: 0, cooldownUntil: 0, state: CIRCUIT.closed, rateLimited: false };
      this.#entries.set(key, entry);
    }
    return entry;
  }

  #setState(key: string, entry: Entry, state: CircuitState): void {
    if (entry.state === state) return;
    entry.state = state;
    this.#onStateChange?.(key, state);
  }

  /** Whether a request may go to the deployment now. Letting the half-open probe through is a side effect. */
  tryAcquire(key: string): boolean {
    const entry = this.#entry(key);
    if (entry.state === CIRCUIT.closed) return true;
    if (entry.state === CIRCUIT.halfOpen || this.#now() < entry.cooldownUntil) return false;
    this.#setState(key, entry, CIRCUIT.halfOpen);
    return true;
  }

  /** When the earliest cooling deployment among `keys` may be probed again (ms epoch). */
  availableAt(keys: Iterable<string>): number {
    let soonest = Number.POSITIVE_INFINITY;
    for (const key of keys) soonest = Math.min(soonest, this.#entry(key).cooldownUntil);
    return soonest;
  }

  /** Whether the deployment has room for one more request this minute (its `rpm` capacity). */
  hasCapacity(key: string, rpm: number | undefined): boolean {
    return rpm === undefined || this.#currentWindow(this.#entry(key)).windowCount < rpm;
  }

  /** Whether every one of `keys` is cooling down because its upstream rate-limited us. */
  allRateLimited(keys: Iterable<string>): boolean {
    for (const key of keys) {
      const entry = this.#entry(key);
      if (entry.state === CIRCUIT.closed || !entry.rateLimited) return false;
    }
    return true;
  }

  begin(key: string): void {
    const entry = this.#currentWindow(this.#entry(key));
    entry.inflight++;
    entry.windowCount++;
  }

  #currentWindow(entry: Entry): Entry {
    const now = this.#now();
    if (now - entry.windowStart >= 60_000) {
      entry.windowStart = now;
      entry.windowCount = 0;
    }
    return entry;
  }

  /**
   * The attempt was answered (headers of a 200). The failure count is cleared only by a whole
   * answer (`completed`): a deployment whose answers start well and then break must still open.
   */
  succeed(key: string, firstByteMs: number): void {
    const entry = this.#entry(key);
    entry.inflight = Math.max(0, entry.inflight - 1);
    entry.latencyMs = entry.latencyMs === undefined ? firstByteMs : entry.latencyMs + this.#latencyWeight * (firstByteMs - entry.latencyMs);
    this.#setState(key, entry, CIRCUIT.closed);
  }

  /**
   * A failed attempt; `rateLimited` opens the circuit at once, for at least `retryAfterMs`.
   * `policy` overrides the defaults for this deployment's model.
   */
  fail(key: string, failure: { rateLimited?: boolean; retryAfterMs?: number } = {}, policy: CircuitPolicy = {}): void {
    const entry = this.#entry(key);
    entry.inflight = Math.max(0, entry.inflight - 1);
    this.#countFailure(key, entry, failure, policy);
  }

  /** An answered attempt's answer was whole: the deployment works. */
  completed(key: string): void {
    this.#entry(key).consecutiveFailures = 0;
  }

  /** An answered attempt's answer broke off or could not be read: a failure like any other. */
  broke(key: string, policy: CircuitPolicy = {}): void {
    this.#countFailure(key, this.#entry(key), {}, policy);
  }

  #countFailure(key: string, entry: Entry, failure: { rateLimited?: boolean; retryAfterMs?: number }, policy: CircuitPolicy): void {
    entry.consecutiveFailures++;
    const threshold = policy.failureThreshold ?? this.#failureThreshold;
    if (failure.rateLimited === true || entry.state === CIRCUIT.halfOpen || entry.consecutiveFailures >= threshold) {
      entry.cooldownUntil = this.#now() + Math.max(policy.cooldownMs ?? this.#cooldownMs, failure.retryAfterMs ?? 0);
      entry.rateLimited = failure.rateLimited === true;
      this.#setState(key, entry, CIRCUIT.open);
    }
  }

  /** The attempt ended without telling anything about the deployment (client went away, client error). */
  finish(key: string): void {
    const entry = this.#entry(key);
    entry.inflight = Math.max(0, entry.inflight - 1);
    if (entry.state === CIRCUIT.halfOpen) this.#setState(key, entry, CIRCUIT.closed);
  }

  inflight(key: string): number {
    return this.#entry(key).inflight;
  }

  latencyMs(key: string): number | undefined {
    return this.#entry(key).latencyMs;
  }

  state(key: string): CircuitState {
    return this.#entry(key).state;
  }
}

export function deploymentKey(provider: string, model: string): string {
  return `${provider}/${model}`;
}
