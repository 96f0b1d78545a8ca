import { describe, expect, it } from 'vitest';
import { CIRCUIT, DeploymentHealth } from './deployment-health.ts';

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('DeploymentHealth', () => {
  it('should open after consecutive failures and let one probe through after the cooldown', () => {
    const time = clock();
    const states: number[] = [];
    const health = new DeploymentHealth({ failureThreshold: 2, cooldownMs: 1000, now: time.now, onStateChange: (_key, state) => states.push(state) });
    for (let i = 0; i < 2; i++) {
      expect(health.tryAcquire('d')).toBe(true);
      health.begin('d');
      health.fail('d');
    }
    expect(health.state('d')).toBe(CIRCUIT.open);
    expect(health.tryAcquire('d')).toBe(false);
    time.advance(1000);
    expect(health.tryAcquire('d')).toBe(true);
    expect(health.state('d')).toBe(CIRCUIT.halfOpen);
    // Only one probe at a time.
    expect(health.tryAcquire('d')).toBe(false);
    health.begin('d');
    health.succeed('d', 5);
    expect(health.state('d')).toBe(CIRCUIT.closed);
    expect(states).toEqual([CIRCUIT.open, CIRCUIT.halfOpen, CIRCUIT.closed]);
  });

  it('should reopen when the probe fails', () => {
    const time = clock();
    const health = new DeploymentHealth({ failureThreshold: 1, cooldownMs: 1000, now: time.now });
    health.begin('d');
    health.fail('d');
    time.advance(1000);
    expect(health.tryAcquire('d')).toBe(true);
    health.begin('d');
    health.fail('d');
    expect(health.state('d')).toBe(CIRCUIT.open);
    expect(health.tryAcquire('d')).toBe(false);
  });

  it('should count answers that start well and then break, until a whole answer clears the count', () => {
    const health = new DeploymentHealth({ failureThreshold: 2, cooldownMs: 1000, now: clock().now });
    const answered = (whole: boolean) => {
      health.begin('d');
      health.succeed('d', 5);
      if (whole) health.completed('d');
      else health.broke('d');
    };
    answered(false);
    answered(true);
    answered(false);
    expect(health.state('d')).toBe(CIRCUIT.closed);
    answered(false);
    expect(health.state('d')).toBe(CIRCUIT.open);
    expect(health.inflight('d')).toBe(0);
  });

  it('should open at once on a 429 for at least its retry-after', () => {
    const time = clock();
    const health = new DeploymentHealth({ failureThreshold: 5, cooldownMs: 1000, now: time.now });
    health.begin('d');
    health.fail('d', { rateLimited: true, retryAfterMs: 7000 });
    expect(health.availableAt(['d'])).toBe(time.now() + 7000);
    time.advance(6999);
    expect(health.tryAcquire('d')).toBe(false);
    time.advance(1);
    expect(health.tryAcquire('d')).toBe(true);
  });

  it('should track in-flight, latency and per-minute capacity', () => {
    const time = clock();
    const health = new DeploymentHealth({ now: time.now, latencyWeight: 0.5 });
    health.begin('d');
    health.begin('d');
    expect(health.inflight('d')).toBe(2);
    health.succeed('d', 100);
    health.succeed('d', 200);
    expect(health.inflight('d')).toBe(0);
    expect(health.latencyMs('d')).toBe(150);
    expect(health.hasCapacity('d', 2)).toBe(false);
    time.advance(60_000);
    expect(health.hasCapacity('d', 2)).toBe(true);
  });
});
