import { describe, expect, it } from 'vitest';
import { backoffDelay, sleep } from './backoff.ts';

describe('backoffDelay', () => {
  it('should grow exponentially with full jitter and stay under the cap', () => {
    const policy = { attempts: 5, backoffMs: 100, maxBackoffMs: 1000 };
    expect(backoffDelay(policy, 0, () => 1)).toBe(100);
    expect(backoffDelay(policy, 2, () => 1)).toBe(400);
    expect(backoffDelay(policy, 6, () => 1)).toBe(1000);
    expect(backoffDelay(policy, 2, () => 0.5)).toBe(200);
  });
});

describe('sleep', () => {
  it('should end early when the signal aborts', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = sleep(10_000, controller.signal);
    controller.abort();
    await pending;
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
