import { describe, expect, it } from 'vitest';
import { createIdleTrigger } from './idle-heap-trim.ts';

/** The windows at which a trigger fed these utilizations fires. */
function firings(utilizations: number[]): number[] {
  const trigger = createIdleTrigger();
  return utilizations.flatMap((utilization, index) => (trigger(utilization) ? [index] : []));
}

describe('createIdleTrigger', () => {
  it('should fire on the first idle window after start-up, which counts as busy', () => {
    expect(firings([0.002, 0, 0])).toEqual([0]);
  });

  it('should fire once per busy spell, on the first idle window after it', () => {
    expect(firings([0, 0.5, 0.9, 0.3, 0.001, 0, 0, 0.2, 0.005, 0])).toEqual([0, 4, 8]);
  });

  it('should leave the state alone in between busy and idle, so a trickle neither fires nor re-arms', () => {
    expect(firings([0, 0.02, 0.03, 0.02, 0])).toEqual([0]);
    expect(firings([0.8, 0.02, 0.03, 0])).toEqual([3]);
  });

  it('should not fire while the process stays busy', () => {
    expect(firings([0.5, 0.6, 0.06, 0.9])).toEqual([]);
  });
});
