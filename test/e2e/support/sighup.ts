import { writeFileSync } from 'node:fs';
import { eventually, sleep } from './replicas.ts';
import type { SwitchyardProcess } from './start-process.ts';

/** How long a config or admin change may take to reach every ingress (issue 4). */
export const CHANGE_PROPAGATION_MS = 2_000;
/** Beyond the catalog's file-watch debounce (200 ms): an edit not applied by then was not watched. */
const WATCH_SETTLE_MS = 600;

/**
 * Writes `text` to `configFile` (served behind a symlink, see writeLinkedConfig), checks that no
 * probe holds before the signal, sends SIGHUP to `target`, and returns how long after the signal
 * each probe first held (Infinity if not within a few times the propagation bound).
 */
export async function reloadBySighup(
  target: SwitchyardProcess,
  configFile: string,
  text: string,
  probes: Array<() => Promise<boolean>>,
): Promise<{ heldBefore: boolean[]; elapsedMs: number[] }> {
  writeFileSync(configFile, text);
  await sleep(WATCH_SETTLE_MS);
  const heldBefore = await Promise.all(probes.map((probe) => probe()));
  const signalled = performance.now();
  target.child.kill('SIGHUP');
  const elapsedMs = await Promise.all(
    probes.map(async (probe) => ((await eventually(probe, 3 * CHANGE_PROPAGATION_MS, 20)) ? performance.now() - signalled : Number.POSITIVE_INFINITY)),
  );
  return { heldBefore, elapsedMs };
}
