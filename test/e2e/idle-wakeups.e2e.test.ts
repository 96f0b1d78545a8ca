// An idle gateway should let its core sleep: every timer that fires while nothing is served is
// CPU each replica spends for nothing. prom-client's event-loop monitor alone woke the main
// thread 100 times a second (docs/performance.md, "An idle process"). Counted, not timed: the
// kernel's count of the main thread's voluntary context switches, each a return from waiting.
import { readFileSync } from 'node:fs';
import { getFreePort } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { postChat, simulatorConfig, sleep } from './support/replicas.ts';
import { writeConfig } from './support/scratch.ts';
import { startSwitchyard, type SwitchyardProcess } from './support/start-process.ts';

const KEY = 'sk-sy-idle-wakeups-e2e-key-0123456789ab';

function mainThreadWakeups(pid: number): number {
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
  return Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status)?.[1]);
}

describe.runIf(process.platform === 'linux')('an idle gateway', () => {
  let gateway: SwitchyardProcess | undefined;
  afterEach(async () => {
    await gateway?.stop();
    gateway = undefined;
  });

  it('should wake its main thread a few times a second, not a hundred', async () => {
    // The production log flush (1 s), not the tests' 50 ms, which would itself wake it 20 times a second.
    gateway = await startSwitchyard('all', { port: await getFreePort(), config: writeConfig(simulatorConfig(KEY)), env: { SWITCHYARD_LOG_FLUSH_MS: '1000' } });
    expect((await postChat(gateway.url, KEY, 'hello')).status).toBe(200);
    await sleep(1_000);
    const pid = gateway.child.pid as number;
    const before = mainThreadWakeups(pid);
    const seconds = 3;
    await sleep(seconds * 1000);
    const perSecond = (mainThreadWakeups(pid) - before) / seconds;
    // Left: the log flush and the idle-trim check (one a second each) and the event-loop
    // monitor (ten a second).
    expect(perSecond).toBeLessThan(40);
  });
});
