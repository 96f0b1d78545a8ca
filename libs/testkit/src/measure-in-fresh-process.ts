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
