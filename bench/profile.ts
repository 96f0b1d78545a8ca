/**
 * CPU profile of the Switchyard hot path under load: `switchyard all` is started with
 * `node --cpu-prof`, loaded with one scenario (same load tool and pinning as bench/run.ts),
 * stopped with SIGTERM (the profile is written on exit) and summarised.
 *
 *   node bench/profile.ts [--scenarios chat,chat-stream,chat>messages-stream] [--seconds 15] [--target all] [--alloc | --promoted]
 *
 * Writes bench/results/<date>/profile-<target>-<scenario>.{cpuprofile,md}. With --alloc it
 * samples allocations instead of time (allocation-sampler.ts), from the end of the warm-up to
 * the end of the load, and writes allocations-<target>-<scenario>.{heapprofile,md}: bytes
 * allocated per request, which a noisy machine does not blur as it does times. With --promoted
 * it keeps only what outlived a young collection (promoted-<target>-<scenario>.*): what makes the
 * old generation grow.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runLoad, setLoadTool, wrkAvailable } from './lib/load.ts';
import { pinningAvailable, setPinning } from './lib/processes.ts';
import { SCENARIOS } from './lib/scenarios.ts';
import { renderAllocations, summariseAllocations, type HeapProfile } from './lib/summarise-allocations.ts';
import { renderProfile, summariseProfile } from './lib/summarise-profile.ts';
import { BENCH_KEY, launchedPids, startSimulator, startTarget, type RunningTarget, type TargetId } from './lib/targets.ts';
import { log, sleep } from './lib/util.ts';

const { values } = parseArgs({
  options: { scenarios: { type: 'string' }, seconds: { type: 'string' }, target: { type: 'string' }, connections: { type: 'string' }, alloc: { type: 'boolean' }, promoted: { type: 'boolean' } },
});
const ALLOCATION_SAMPLER = fileURLToPath(new URL('./lib/allocation-sampler.ts', import.meta.url));
const scenarioIds = values.scenarios?.split(',') ?? ['chat', 'chat-stream', 'chat>messages-stream'];
const seconds = Number(values.seconds ?? 15);
const targetId = (values.target ?? 'all') as TargetId;
const keep = values.promoted === true ? 'promoted' : 'all';
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
    const safe = id.replaceAll('>', '-to-');
    if (values.alloc === true || keep === 'promoted') {
      sections.push(...(await sampleAllocations(id, safe, profileDirectory)));
      rmSync(profileDirectory, { recursive: true, force: true });
      continue;
    }
    const target = await startTarget(targetId, simulator.url, { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profileDirectory] });
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
    for (const [index, file] of files.entries()) {
      const pid = /\.(\d+)\.\d+\.\d+\.cpuprofile$/.exec(file)?.[1] ?? String(index);
      const role = roleOf(target, Number(pid));
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

/** What a profiled process is: its role in a target of several processes (split), else the target. */
function roleOf(target: RunningTarget, pid: number): string {
  return target.roles === undefined ? targetId : (target.roles[target.pids.indexOf(pid)] ?? `pid ${pid}`);
}

/** One scenario under the allocation sampler: one profile per target process, sampled over the measured load only. */
async function sampleAllocations(id: string, safe: string, profileDirectory: string): Promise<string[]> {
  mkdirSync(profileDirectory, { recursive: true });
  process.env.SWITCHYARD_BENCH_ALLOCATIONS = profileDirectory;
  process.env.SWITCHYARD_BENCH_ALLOCATIONS_KEEP = keep;
  const target = await startTarget(targetId, simulator.url, { nodeArgs: ['--import', ALLOCATION_SAMPLER] });
  const connections = Number(values.connections ?? 50);
  let requests: number;
  try {
    const call = SCENARIOS.find((s) => s.id === id)?.call(target.kind, { key: BENCH_KEY, simulatorUrl: simulator.url });
    if (call === undefined) throw new Error(`${targetId} cannot serve ${id}`);
    await runLoad({ baseUrl: target.url, call, connections, seconds: 2 });
    // Split mode's catalog runs without the sampler (as without the CPU profiler); the signal would end it.
    const sampled = launchedPids(target);
    for (const pid of sampled) process.kill(pid, 'SIGUSR2');
    const load = await runLoad({ baseUrl: target.url, call, connections, seconds });
    requests = load.requests;
    log(`${id}: ${load.rps.toFixed(0)} req/s under the sampler, ${load.errors} errors`);
    for (const pid of sampled) process.kill(pid, 'SIGUSR2');
    // Each process writes its profile when it has stopped sampling.
    const deadline = Date.now() + 30_000;
    while (readdirSync(profileDirectory).length < sampled.length && Date.now() < deadline) await sleep(200);
  } finally {
    await target.stop();
  }
  const sections: string[] = [];
  for (const file of readdirSync(profileDirectory)) {
    const pid = Number(file.replace(/\.heapprofile$/, ''));
    const role = roleOf(target, pid);
    const kept = join(directory, `${keep === 'promoted' ? 'promoted' : 'allocations'}-${targetId}-${safe}${target.roles === undefined ? '' : `-${role.replaceAll(' ', '-')}`}.heapprofile`);
    renameSync(join(profileDirectory, file), kept);
    const summary = summariseAllocations(JSON.parse(readFileSync(kept, 'utf8')) as HeapProfile, requests);
    const section = renderAllocations(`${targetId}${target.roles === undefined ? '' : ` (${role})`}, ${id}: ${keep === 'promoted' ? 'promoted objects' : 'allocations'}, ${seconds} s at c=${connections}, ${requests} requests`, summary, keep);
    writeFileSync(kept.replace(/\.heapprofile$/, '.md'), section);
    sections.push(section);
  }
  return sections;
}
