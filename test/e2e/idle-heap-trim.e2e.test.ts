import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { getFreePort } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { postChat, simulatorConfig, sleep } from './support/replicas.ts';
import { writeConfig } from './support/scratch.ts';
import { startSwitchyard, type SwitchyardProcess } from './support/start-process.ts';

const BIN = fileURLToPath(new URL('../../bin/switchyard.js', import.meta.url));
const KEY = 'sk-sy-idle-trim-e2e-key-0123456789abcdef';

interface TrimLine {
  durationMs: number;
  heapUsedBefore: number;
  heapUsedAfter: number;
  heapTotalBefore: number;
  heapTotalAfter: number;
}

function trims(gateway: SwitchyardProcess): TrimLine[] {
  return gateway
    .output()
    .split('\n')
    .filter((line) => line.includes('"idle heap trim"'))
    .map((line) => JSON.parse(line) as TrimLine);
}

async function waitForTrims(gateway: SwitchyardProcess, count: number): Promise<TrimLine[]> {
  const deadline = Date.now() + 10_000;
  while (trims(gateway).length < count && Date.now() < deadline) await sleep(50);
  return trims(gateway);
}

/** How many collections there have been once a whole second has passed without one. */
async function waitForQuiet(gateway: SwitchyardProcess): Promise<number> {
  for (;;) {
    const before = trims(gateway).length;
    await sleep(1_000);
    const after = trims(gateway).length;
    if (after === before) return after;
  }
}

/** Enough concurrent work to make a one-second window of the event loop busy (> 5%), however the windows fall. */
async function burst(gateway: SwitchyardProcess): Promise<void> {
  const answers = await Promise.all(Array.from({ length: 600 }, () => postChat(gateway.url, KEY, 'hello there')));
  expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([200]));
}

describe('the idle heap trim', () => {
  let gateway: SwitchyardProcess | undefined;
  afterEach(async () => {
    await gateway?.stop();
    gateway = undefined;
  });

  it('should collect once after start-up and once after each busy spell, giving heap back each time', async () => {
    gateway = await startSwitchyard('all', {
      port: await getFreePort(),
      config: writeConfig(simulatorConfig(KEY)),
      // One-second windows, as in production: with shorter ones, 5% busy is a few milliseconds,
      // which on a loaded machine a stray flush of the log can reach and re-arm the trim. At info,
      // the level a deployment runs at: the line is there to explain a step in its memory graph.
      env: { LOG_LEVEL: 'info', SWITCHYARD_IDLE_TRIM_AFTER_MS: '1000' },
    });
    const [startUp] = await waitForTrims(gateway, 1);
    // Start-up grows the young generation; the memory-reducing collection shrinks it again.
    expect(startUp!.heapTotalAfter).toBeLessThan(startUp!.heapTotalBefore);
    // On a loaded machine the readiness probe can land after that first collection, and being the
    // first request it is busy enough to arm one more: wait until start-up has settled.
    const settled = await waitForQuiet(gateway);

    await burst(gateway);
    const afterBurst = await waitForTrims(gateway, settled + 1);
    expect(afterBurst).toHaveLength(settled + 1);
    expect(afterBurst[settled]!.heapUsedAfter).toBeLessThan(afterBurst[settled]!.heapUsedBefore);

    // Idle windows, the collection's own included, must not set off another one.
    await sleep(2_500);
    expect(trims(gateway)).toHaveLength(settled + 1);
  });

  it('should not collect when SWITCHYARD_IDLE_TRIM_AFTER_MS is 0', async () => {
    gateway = await startSwitchyard('all', {
      port: await getFreePort(),
      config: writeConfig(simulatorConfig(KEY)),
      env: { LOG_LEVEL: 'debug', SWITCHYARD_IDLE_TRIM_AFTER_MS: '0' },
    });
    await burst(gateway);
    await sleep(1_500);
    expect(trims(gateway)).toEqual([]);
  });

  it('should refuse a value that is not a number of milliseconds', () => {
    const result = spawnSync(process.execPath, [BIN, 'all', '--config', writeConfig(simulatorConfig(KEY)), '--port', '0'], {
      env: { ...process.env, SWITCHYARD_IDLE_TRIM_AFTER_MS: 'soon' },
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("SWITCHYARD_IDLE_TRIM_AFTER_MS must be a number of milliseconds ≥ 0, not 'soon'");
  });
});
