import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * In a fresh process: objects of one allocation site that all outlive young collections, then
 * short-lived ones from the same site. The old space they grow is what V8 allocated there
 * directly, pretenured.
 */
function oldSpaceGrownByShortLivedObjects(tune: boolean): number {
  const script = `
    import v8 from 'node:v8';
    ${tune ? `const { tuneV8 } = await import(${JSON.stringify(new URL('./tune-v8.ts', import.meta.url).href)}); tuneV8();` : ''}
    const old = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space').space_used_size;
    const make = (i) => ({ i, a: i + 1, b: 'x', c: null });
    const kept = [];
    for (let i = 0; i < 2_000_000; i++) kept.push(make(i));
    const before = old();
    for (let i = 0; i < 200_000; i++) globalThis.last = make(i);
    globalThis.kept = kept;
    process.stdout.write(String(old() - before));
  `;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

describe('tuneV8', () => {
  it('should keep V8 from allocating a site that once outlived young collections in the old generation', () => {
    // The untuned process shows the test can tell: V8 pretenures these by default.
    expect(oldSpaceGrownByShortLivedObjects(false)).toBeGreaterThan(5_000_000);
    expect(oldSpaceGrownByShortLivedObjects(true)).toBeLessThan(500_000);
  });
});
