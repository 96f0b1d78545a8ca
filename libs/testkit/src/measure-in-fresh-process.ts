import { execFileSync } from 'node:child_process';

/**
 * Runs `body` as an ES module in a fresh Node process started with `nodeArgs` and returns the
 * number it passes to `report`. Heap tests measure there: the collector's history, and V8's
 * decisions drawn from it, are then the test's alone. `body` may call `oldSpaceUsed()` and
 * `oldSpaceSize()`, V8's old-space statistics in bytes.
 */
export function measureInFreshProcess(body: string, nodeArgs: readonly string[] = []): number {
  const script = `
    import v8 from 'node:v8';
    const oldSpace = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space');
    const oldSpaceUsed = () => oldSpace().space_used_size;
    const oldSpaceSize = () => oldSpace().space_size;
    const report = (value) => process.stdout.write(String(value));
    ${body}
  `;
  return Number(execFileSync(process.execPath, [...nodeArgs, '--input-type=module', '-e', script], { encoding: 'utf8' }));
}

/**
 * Old space's peak growth while `step` runs 40,000 times (its counter is `i`), after `setup` and
 * a full collection, in a fresh process with a 1 MB young generation: what the young collector
 * promoted. The peak is sampled as it goes, since a full collection V8 starts on its own during
 * the churn frees what was promoted, and the end alone then read as little as 5 MB.
 */
export function peakOldSpaceGrowthOfChurn(setup: string, step: string): number {
  return measureInFreshProcess(
    `
      ${setup}
      globalThis.gc({ type: 'major' });
      const before = oldSpaceUsed();
      let peak = 0;
      for (let i = 0; i < 40_000; i++) {
        ${step}
        if (i % 500 === 0) peak = Math.max(peak, oldSpaceUsed() - before);
      }
      report(Math.max(peak, oldSpaceUsed() - before));
    `,
    ['--expose-gc', '--max-semi-space-size=1'],
  );
}
