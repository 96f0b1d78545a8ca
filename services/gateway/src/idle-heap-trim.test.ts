import { describe, expect, it } from 'vitest';
import { createIdleTrigger } from './idle-heap-trim.ts';

/** The windows at which a trigger fed these utilizations fires. */
function firings(utilizations: number[], idleWindows = 1): number[] {
  const trigger = createIdleTrigger(idleWindows);
  return utilizations.flatMap((utilization, index) => (trigger(utilization) ? [index] : []));
}

describe('createIdleTrigger', () => {
  it('should fire on the first idle window after start-up, which counts as busy', () => {
    expect(firings([0.002, 0, 0])).toEqual([0]);
  });

  it('should fire once per busy spell, on the first idle window after it', () => {
    expect(firings([0, 0.5, 0.9, 0.3, 0.001, 0, 0, 0.2, 0.005, 0])).toEqual([0, 4, 8]);
  });

  it('should neither fire nor re-arm on a trickle between busy and idle', () => {
    expect(firings([0, 0.02, 0.03, 0.02, 0])).toEqual([0]);
    expect(firings([0.8, 0.02, 0.03, 0])).toEqual([3]);
  });

  it('should wait for as many quiet windows as it is given, counting again after a busy one', () => {
    expect(firings([0.5, 0, 0, 0, 0, 0], 3)).toEqual([3]);
    expect(firings([0.5, 0, 0, 0.5, 0, 0, 0, 0], 3)).toEqual([6]);
  });

  // An idle process reads a window of 1–5% now and then (V8's collector, the machine's other work).
  it('should count a window between idle and busy toward the quiet period, and fire on the next idle one', () => {
    expect(firings([0.5, 0, 0.018, 0, 0], 3)).toEqual([3]);
    expect(firings([0.5, 0, 0.018, 0.03, 0.02, 0], 3)).toEqual([5]);
  });

  it('should not fire while the process stays busy', () => {
    expect(firings([0.5, 0.6, 0.06, 0.9])).toEqual([]);
  });
});
