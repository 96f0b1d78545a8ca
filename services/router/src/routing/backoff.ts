import type { RetryPolicy } from '@switchyard/catalog-client';

export const DEFAULT_RETRY: RetryPolicy = { attempts: 2, backoffMs: 100, maxBackoffMs: 5000 };

/** Full-jitter exponential backoff: a random wait up to base·2^attempt, capped. */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  return Math.round(random() * Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** attempt));
}

/** Waits, unless the client goes away first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
