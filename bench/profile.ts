/**
 * CPU profile of the Switchyard hot path under load: `switchyard all` is started with
 * `node --cpu-prof`, loaded with one scenario (same load tool and pinning as bench/run.ts),
 * stopped with SIGTERM (the profile is written on exit) and summarised.
 *
 *   node bench/profile.ts [--scenarios chat,chat-stream,chat>messages-stream] [--seconds 15] [--target all]
 *
 * Writes bench/results/<date>/profile-<scenario>.{cpuprofile,md}.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runLoad, setLoadTool, wrkAvailable } from './lib/load.ts';
import { pinningAvailable, setPinning } from './lib/processes.ts';
import { SCENARIOS } from './lib/scenarios.ts';
import { renderProfile, summariseProfile } from './lib/summarise-profile.ts';
import { BENCH_KEY, startSimulator, startTarget, type TargetId } from './lib/targets.ts';
import { log, sleep } from './lib/util.ts';

const { values } = parseArgs({
  options: { scenarios: { type: 'string' }, seconds: { type: 'string' }, target: { type: 'string' }, connections: { type: 'string' } },
});
const scenarioIds = values.scenarios?.split(',') ?? ['chat', 'chat-stream', 'chat>messages-stream'];
const seconds = Number(values.seconds ?? 15);
const targetId = (values.target ?? 'all') as TargetId;
setPinning(availableParallelism() >= 2 && pinningAvailable());
setLoadTool(wrkAvailable() ? 'wrk' : 'autocannon');

const date = new Date().toISOString().slice(0, 10);
const directory = fileURLToPath(new URL(`./results/${date}/`, import.meta.url));
mkdirSync(directory, { recursive: true });

const simulator = await startSimulator();
const sections: string[] = [];
try {
  for (const id of scenarioIds) {
    const scenario = SCENARIOS.find((s) => s.id === id);
    if (scenario === undefined) throw new Error(`unknown scenario ${id}`);
    const profileDirectory = join(directory, `.profile-${Date.now()}`);
    const target = await startTarget(targetId, simulator.url, ['--cpu-prof', '--cpu-prof-dir', profileDirectory]);
    // In split mode the pids are catalog, router, ingress in that order.
    const pidNames = new Map(target.pids.map((pid, index) => [pid, ['catalog', 'router', 'ingress'][index] ?? `pid ${pid}`]));
    try {
      const call = scenario.call(target.kind, { key: BENCH_KEY, simulatorUrl: simulator.url });
      if (call === undefined) throw new Error(`${targetId} cannot serve ${id}`);
      await runLoad({ baseUrl: target.url, call, connections: Number(values.connections ?? 50), seconds: 2 });
      const load = await runLoad({ baseUrl: target.url, call, connections: Number(values.connections ?? 50), seconds });
      log(`${id}: ${load.rps.toFixed(0)} req/s under the profiler, ${load.errors} errors`);
    } finally {
      await target.stop();
    }
    await sleep(500);
    // One profile per profiled process (split mode: router and ingress), named by pid; the
    // catalog is started without the profiler.
    const files = readdirSync(profileDirectory).filter((file) => file.endsWith('.cpuprofile'));
    if (files.length === 0) throw new Error(`no profile written in ${profileDirectory}`);
    const safe = id.replaceAll('>', '-to-');
    for (const [index, file] of files.entries()) {
      const pid = /\.(\d+)\.\d+\.\d+\.cpuprofile$/.exec(file)?.[1] ?? String(index);
      const role = targetId === 'split' ? (pidNames.get(Number(pid)) ?? `pid ${pid}`) : targetId;
      const kept = join(directory, `profile-${targetId}-${safe}${files.length > 1 ? `-${role.replaceAll(' ', '-')}` : ''}.cpuprofile`);
      renameSync(join(profileDirectory, file), kept);
      const summary = summariseProfile(JSON.parse(readFileSync(kept, 'utf8')), 30);
      const section = renderProfile(`${targetId}${files.length > 1 ? ` (${role})` : ''}, ${id} (${scenario.title}), ${seconds} s at c=${values.connections ?? 50}`, summary);
      writeFileSync(kept.replace(/\.cpuprofile$/, '.md'), section);
      sections.push(section);
    }
    rmSync(profileDirectory, { recursive: true, force: true });
  }
} finally {
  await simulator.started.stop();
}
process.stdout.write(sections.join('\n'));
