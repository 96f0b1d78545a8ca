import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getFreePort } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { startSwitchyard, type SwitchyardProcess } from './support/start-process.ts';

const BIN = fileURLToPath(new URL('../../bin/switchyard.js', import.meta.url));
const KEY = 'sk-sy-idle-trim-e2e-key-0123456789abcdef';

function writeConfig(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'switchyard-idle-trim-')), 'config.yaml');
  writeFileSync(
    file,
    `
providers:
  sim: { protocol: simulator }
models:
  - { name: m, deployments: [{ provider: sim, model: sim-model }] }
tenants:
  - id: t
    keys: [{ id: k, key: ${KEY} }]
`,
  );
  return file;
}

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
  while (trims(gateway).length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return trims(gateway);
}

/** Enough concurrent work to make a 200 ms window of the event loop busy. */
async function burst(gateway: SwitchyardProcess): Promise<void> {
  const statuses = await Promise.all(
    Array.from({ length: 300 }, () =>
      fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hello there' }] }),
      }).then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      }),
    ),
  );
  expect(new Set(statuses)).toEqual(new Set([200]));
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
      config: writeConfig(),
      env: { LOG_LEVEL: 'debug', SWITCHYARD_IDLE_TRIM_AFTER_MS: '200' },
    });
    const [startUp] = await waitForTrims(gateway, 1);
    // Start-up grows the young generation; the memory-reducing collection shrinks it again.
    expect(startUp!.heapTotalAfter).toBeLessThan(startUp!.heapTotalBefore);

    await burst(gateway);
    const afterBurst = await waitForTrims(gateway, 2);
    expect(afterBurst).toHaveLength(2);
    expect(afterBurst[1]!.heapUsedAfter).toBeLessThan(afterBurst[1]!.heapUsedBefore);

    // Idle windows, the collection's own included, must not set off another one.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(trims(gateway)).toHaveLength(2);
  });

  it('should not collect when SWITCHYARD_IDLE_TRIM_AFTER_MS is 0', async () => {
    gateway = await startSwitchyard('all', {
      port: await getFreePort(),
      config: writeConfig(),
      env: { LOG_LEVEL: 'debug', SWITCHYARD_IDLE_TRIM_AFTER_MS: '0' },
    });
    await burst(gateway);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(trims(gateway)).toEqual([]);
  });

  it('should refuse a value that is not a number of milliseconds', () => {
    const result = spawnSync(process.execPath, [BIN, 'all', '--config', writeConfig(), '--port', '0'], {
      env: { ...process.env, SWITCHYARD_IDLE_TRIM_AFTER_MS: 'soon' },
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("SWITCHYARD_IDLE_TRIM_AFTER_MS must be a number of milliseconds ≥ 0, not 'soon'");
  });
});
