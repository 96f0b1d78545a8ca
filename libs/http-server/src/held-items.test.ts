import { peakOldSpaceGrowthOfChurn } from '@switchyard/testkit/fresh-process';
import { describe, expect, it } from 'vitest';
import { HeldItems } from './held-items.ts';

describe('HeldItems', () => {
  it('should hold each item until its handle lets go, in any order, and ignore a second release', () => {
    const held = new HeldItems<string>();
    const releaseA = held.add('a');
    const releaseB = held.add('b');
    const releaseC = held.add('c');
    releaseA();
    expect(held.values().sort()).toEqual(['b', 'c']);
    releaseA();
    expect(held.size).toBe(2);
    releaseC();
    const releaseD = held.add('d');
    expect(held.values().sort()).toEqual(['b', 'd']);
    releaseB();
    releaseD();
    expect(held.size).toBe(0);
  });

  it('should hand out a copy that a release during the visit does not disturb', () => {
    const held = new HeldItems<number>();
    const releases = [1, 2, 3].map((n) => held.add(n));
    const visited: number[] = [];
    for (const n of held.values()) {
      visited.push(n);
      for (const release of releases) release();
    }
    expect(visited).toEqual([1, 2, 3]);
    expect(held.size).toBe(0);
  });

  it('should forget everything on clear, and releases after it do nothing', () => {
    const held = new HeldItems<number>();
    const release = held.add(1);
    held.add(2);
    held.clear();
    release();
    expect(held.size).toBe(0);
    held.add(3);
    expect(held.values()).toEqual([3]);
  });

  /**
   * In a fresh process: 50 items held at a time, each with 4 KB of its own, one released and one
   * added per step, after a full collection has moved the holder's storage to the old
   * generation. Old-space growth is what the young collector promoted.
   */
  function oldSpaceGrownByChurn(holder: 'set' | 'held-items'): number {
    return peakOldSpaceGrowthOfChurn(
      `
        const { HeldItems } = await import(${JSON.stringify(new URL('./held-items.ts', import.meta.url).href)});
        const set = new Set();
        const items = new HeldItems();
        const hold = ${holder === 'set' ? '(item) => { set.add(item); return () => set.delete(item); }' : '(item) => items.add(item)'};
        const make = (i) => ({ i, payload: new Array(512).fill(i) });
        const releases = [];
        for (let i = 0; i < 50; i++) releases.push(hold(make(i)));
      `,
      'releases.shift()(); releases.push(hold(make(i)));',
    );
  }

  it('should not keep released items alive through young collections, as a Set does', () => {
    // The Set shows the test can tell: V8's rehashed tables chain the released items into the old generation.
    expect(oldSpaceGrownByChurn('set')).toBeGreaterThan(10_000_000);
    expect(oldSpaceGrownByChurn('held-items')).toBeLessThan(2_000_000);
  });
});
