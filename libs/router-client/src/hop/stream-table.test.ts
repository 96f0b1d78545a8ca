import { peakOldSpaceGrowthOfChurn } from '@switchyard/testkit/fresh-process';
import { describe, expect, it } from 'vitest';
import { StreamTable } from './stream-table.ts';

describe('StreamTable', () => {
  it('should find streams by id until they are deleted, and count them', () => {
    const table = new StreamTable<string>();
    table.set(1, 'a');
    table.set(2, 'b');
    table.set(2, 'b2');
    expect(table.size).toBe(2);
    expect(table.get(2)).toBe('b2');
    expect(table.delete(1)).toBe(true);
    expect(table.delete(1)).toBe(false);
    expect(table.has(1)).toBe(false);
    expect(table.get(1)).toBeUndefined();
    expect(table.values()).toEqual(['b2']);
    table.clear();
    expect(table.size).toBe(0);
    expect(table.values()).toEqual([]);
  });

  /**
   * In a fresh process: 50 streams of 4 KB each open at a time on ever-growing ids, one ended
   * and one opened per step, after a full collection. Old-space growth is what the young
   * collector promoted.
   */
  function oldSpaceGrownByChurn(holder: 'map' | 'table'): number {
    return peakOldSpaceGrowthOfChurn(
      `
        const { StreamTable } = await import(${JSON.stringify(new URL('./stream-table.ts', import.meta.url).href)});
        const streams = ${holder === 'map' ? 'new Map()' : 'new StreamTable()'};
        const make = (i) => ({ i, payload: new Array(512).fill(i) });
        let next = 1;
        for (; next <= 50; next++) streams.set(next, make(next));
      `,
      'streams.delete(next - 50); streams.set(next, make(next)); next++;',
    );
  }

  it('should not keep ended streams alive through young collections, as a Map does', () => {
    // The Map shows the test can tell: V8's rehashed tables chain the ended streams into the old generation.
    expect(oldSpaceGrownByChurn('map')).toBeGreaterThan(10_000_000);
    expect(oldSpaceGrownByChurn('table')).toBeLessThan(2_000_000);
  });
});
