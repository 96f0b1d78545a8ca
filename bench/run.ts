/**
 * Switchyard end-to-end benchmark (issue 8). Everything on loopback, real processes:
 *
 *   npm run bench                      full run (≈ 35–40 min on 2 cores)
 *   npm run bench -- --smoke           every target and scenario, tiny durations, < 90 s, exit 1 on any error
 *   npm run bench -- --soak            10-minute soak of `switchyard all` at half peak (memory growth)
 *
 * Other flags: --runs N, --seconds S (per throughput run), --connections C, --targets a,b,
 * --scenarios x,y, --streams N, --hold S, --no-streams, --no-pin, --tool wrk|autocannon, --out DIR,
 * --heap-mb N (every Node target's old-generation limit, as a pod's memory limit sets it),
 * --soak-rates CHAT,STREAM and --soak-seconds S (a soak at fixed rates, to compare two trees),
 * --instances N (processes started per target, 3; 1 in --smoke and --soak).
 *
 * Two processes of the same code differ by about ±5% in throughput and CPU per request, and keep
 * that bias through every run (docs/performance.md, "The access line, and what one process per
 * variant can show"). So each target is started --instances times, side by side, and its runs
 * are spread over them: a cell's medians are across processes, not one process's luck.
 *
 * The simulator upstream, the load generator and Redis run on core 0; the target under test
 * (and for `direct`, a second simulator) on core 1, when taskset works and there are 2+ cores.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runLoad, setLoadTool, loadTool, wrkAvailable, type LoadResult } from './lib/load.ts';
import { machineInfo } from './lib/machine.ts';
import { isPinning, LOAD_CPU, pinningAvailable, setPinning } from './lib/processes.ts';
import { cpuSeconds, rssBytes, sampleRss, sumCpu, sumRss } from './lib/proc-stats.ts';
import { evaluateGoals, findCell, renderMarkdown } from './lib/report.ts';
import { checkOnce, SCENARIOS, slowStreamCall, type CallContext, type HttpCall } from './lib/scenarios.ts';
import { BENCH_KEY, DEFAULT_TARGET_IDS, IDLE_TRIM_AFTER_MS, startSimulator, startTarget, TARGET_IDS, trimmedSince, type RunningTarget, type TargetId } from './lib/targets.ts';
import type { BenchReport, Cell, Soak, StreamHold } from './lib/types.ts';
import { log, median, medianRssMb, sleep } from './lib/util.ts';

const { values: flags } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    soak: { type: 'boolean', default: false },
    runs: { type: 'string' },
    seconds: { type: 'string' },
    connections: { type: 'string' },
    targets: { type: 'string' },
    scenarios: { type: 'string' },
    streams: { type: 'string' },
    hold: { type: 'string' },
    'no-streams': { type: 'boolean', default: false },
    'no-pin': { type: 'boolean', default: false },
    tool: { type: 'string' },
    out: { type: 'string' },
    'heap-mb': { type: 'string' },
    'soak-rates': { type: 'string' },
    'soak-seconds': { type: 'string' },
    instances: { type: 'string' },
  },
});

const smoke = flags.smoke === true;
const soakMode = flags.soak === true;
const settings = {
  runs: Number(flags.runs ?? (smoke ? 1 : 3)),
  /** Processes per target; run r of a target is measured on process r mod instances. */
  instances: Number(flags.instances ?? (smoke || soakMode ? 1 : 3)),
  seconds: Number(flags.seconds ?? (smoke ? 1 : 8)),
  warmupSeconds: smoke ? 0 : 10,
  connections: Number(flags.connections ?? 50),
  probeCount: smoke ? 20 : 1000,
  probeWarmup: smoke ? 5 : 100,
  probeSeconds: smoke ? 0.5 : 3,
  streams: Number(flags.streams ?? (smoke ? 50 : 2000)),
  holdSeconds: Number(flags.hold ?? (smoke ? 1 : 60)),
  streamDelayMs: smoke ? 250 : 1000,
  streamTargets: (smoke ? ['all', 'split'] : ['null', 'all', 'split', 'portkey']) as TargetId[],
  soakSeconds: Number(flags['soak-seconds'] ?? 600),
  /** Chat and chat-stream requests/s of the soak; unset, a quarter of each one's peak, measured first. */
  ...(flags['soak-rates'] !== undefined && { soakRates: flags['soak-rates'].split(',').map(Number) }),
  /**
   * Every Node target's old-generation limit (`--max-old-space-size`); unset, Node sizes it from
   * the machine's memory. 512 is what Node 24 picks in the chart's 1 GiB pod (docs/performance.md).
   */
  ...(flags['heap-mb'] !== undefined && { heapMb: Number(flags['heap-mb']) }),
};
/** The idle trim waits for an idle second once its period is over, then runs a full collection (≈ 0.1–0.2 s). */
const TRIM_MARGIN_MS = 10_000;
/** Full runs read memory after the runs once the targets' idle trim has run; smoke runs and soaks do not wait for it. */
const readAfterTrim = !smoke && !soakMode;
const targetNodeArgs = settings.heapMb === undefined ? [] : [`--max-old-space-size=${settings.heapMb}`];
const targetIds = (flags.targets?.split(',') ?? (soakMode ? ['all'] : [...DEFAULT_TARGET_IDS])) as TargetId[];
const scenarioIds = flags.scenarios?.split(',') ?? SCENARIOS.map((scenario) => scenario.id);
for (const id of targetIds) if (!(TARGET_IDS as readonly string[]).includes(id)) throw new Error(`unknown target ${id}`);
if (!(Number.isInteger(settings.instances) && settings.instances >= 1)) throw new Error('--instances needs a whole number ≥ 1');
if (soakMode && settings.instances !== 1) throw new Error('a soak runs one process of its target: --instances 1');

setPinning(flags['no-pin'] !== true && availableParallelism() >= 2 && pinningAvailable());
setLoadTool(flags.tool === 'autocannon' || !wrkAvailable() ? 'autocannon' : (flags.tool as 'wrk' | undefined) ?? 'wrk');

const NODE = process.execPath;
const LIB = fileURLToPath(new URL('./lib/', import.meta.url));

/** Runs a helper script (probe, stream holder) as its own process on the load core. */
function runHelper(script: string, options: unknown, onLine?: (line: string) => void, timeoutMs = 600_000): Promise<string> {
  const args = [join(LIB, script), JSON.stringify(options)];
  const [file, argv] = isPinning() ? ['taskset', ['-c', LOAD_CPU, NODE, ...args]] : [NODE, args];
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      pending += chunk.toString();
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const line of parts) onLine?.(line);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const guard = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(guard);
      if (code === 0) resolve(stdout.trim().split('\n').pop() ?? '');
      else reject(new Error(`${script} exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

const mb = (bytes: number) => bytes / 2 ** 20;
/** Prefix of a run's per-process CPU figures (`cpuPer1k@router`). */
const CPU_BY_ROLE = 'cpuPer1k@';

/**
 * The loaded Switchyard processes that have not logged an idle trim since their instance's last
 * load run. Split's catalog is left out: the load does not make it busy, so it does not trim.
 */
function untrimmed(lastLoadAt: Map<RunningTarget, number>): { target: RunningTarget; role: string | undefined }[] {
  const late: { target: RunningTarget; role: string | undefined }[] = [];
  for (const [target, at] of lastLoadAt) {
    if (target.kind !== 'switchyard') continue;
    for (const [index, output] of target.outputs().entries()) {
      const role = target.roles?.[index];
      if (role !== 'catalog' && !trimmedSince(output, at)) late.push({ target, role });
    }
  }
  return late;
}

/** An instance of a target, and the scenario's call it answered correctly. */
interface Checked {
  target: RunningTarget;
  call: HttpCall;
}

async function measureRun(target: RunningTarget, scenarioId: string, call: HttpCall, run: number, failures: string[]): Promise<Record<string, number>> {
  const probe = JSON.parse(
    await runHelper('probe.ts', {
      url: target.url + call.path,
      headers: call.headers,
      body: call.body,
      count: settings.probeCount,
      warmup: settings.probeWarmup,
      maxSeconds: settings.probeSeconds,
    }),
  ) as { errors: number; count: number; p50Ms: number; p99Ms: number; ttfbP50Ms: number; ttfbP99Ms: number };
  const cpuBefore = target.pids.map(cpuSeconds);
  const sampler = sampleRss(target.pids);
  let load: LoadResult;
  try {
    load = await runLoad({ baseUrl: target.url, call, connections: settings.connections, seconds: settings.seconds });
  } finally {
    sampler.stop();
  }
  const cpuByProcess = target.pids.map((pid, index) => cpuSeconds(pid) - (cpuBefore[index] ?? 0));
  const cpu = cpuByProcess.reduce((total, seconds) => total + seconds, 0);
  const rss = sampler.stop();
  const perThousand = (seconds: number) => (load.requests > 0 ? (seconds / load.requests) * 1000 : Number.NaN);
  // A target of several processes also records each one's share (split: what the hop costs).
  const byRole = Object.fromEntries((target.roles ?? []).map((role, index) => [`${CPU_BY_ROLE}${role}`, perThousand(cpuByProcess[index] ?? 0)]));
  if (load.errors + probe.errors > 0) failures.push(`${target.id} ${scenarioId} run ${run + 1}: ${load.errors} load errors, ${probe.errors} probe errors`);
  return {
    rps: load.rps,
    requests: load.requests,
    p50Ms: load.p50Ms,
    p99Ms: load.p99Ms,
    errors: load.errors + probe.errors,
    probeCount: probe.count,
    loneP50Ms: probe.p50Ms,
    loneP99Ms: probe.p99Ms,
    ttfbP50Ms: probe.ttfbP50Ms,
    ttfbP99Ms: probe.ttfbP99Ms,
    cpuPer1k: perThousand(cpu),
    cpuUtil: cpu / load.seconds,
    rssLoadMb: mb(rss.max),
    ...byRole,
  };
}

function summarise(target: TargetId, scenario: string, raw: Record<string, number>[]): Cell {
  const med = (key: string) => median(raw.map((entry) => entry[key] ?? Number.NaN));
  return {
    target,
    scenario,
    runs: raw.length,
    rps: med('rps'),
    p50Ms: med('p50Ms'),
    p99Ms: med('p99Ms'),
    loneP50Ms: med('loneP50Ms'),
    loneP99Ms: med('loneP99Ms'),
    ttfbP50Ms: med('ttfbP50Ms'),
    ttfbP99Ms: med('ttfbP99Ms'),
    cpuPer1k: med('cpuPer1k'),
    cpuUtil: med('cpuUtil'),
    rssLoadMb: med('rssLoadMb'),
    cpuPer1kByRole: Object.fromEntries(
      Object.keys(raw[0] ?? {})
        .filter((key) => key.startsWith(CPU_BY_ROLE))
        .map((key) => [key.slice(CPU_BY_ROLE.length), med(key)]),
    ),
    errors: raw.reduce((total, entry) => total + (entry.errors ?? 0), 0),
    raw,
  };
}

async function holdStreams(target: RunningTarget, context: CallContext): Promise<StreamHold | undefined> {
  const call = slowStreamCall(target.kind, context, settings.holdSeconds, settings.streamDelayMs);
  if (call === undefined) return undefined;
  await sleep(1000);
  const rssIdle = sumRss(target.pids);
  const cpuBefore = sumCpu(target.pids);
  let open = 0;
  const plateau: number[] = [];
  const timer = setInterval(() => {
    // Samples taken while at least 95% of the streams are open are the plateau.
    if (open >= settings.streams * 0.95 && open > 0) plateau.push(sumRss(target.pids) / open);
  }, 500);
  const openSamples: { rss: number; open: number }[] = [];
  const sampleOpen = setInterval(() => openSamples.push({ rss: sumRss(target.pids), open }), 500);
  let result: { streams: number; completed: number; failed: number; stalled: number; maxOpen: number };
  try {
    const line = await runHelper(
      'hold-streams.ts',
      {
        url: target.url + call.path,
        headers: call.headers,
        body: call.body,
        streams: settings.streams,
        rampPerSecond: smoke ? 500 : 400,
        holdSeconds: settings.holdSeconds,
        firstEventTimeoutMs: smoke ? 5_000 : 15_000,
      },
      (text) => {
        if (text.startsWith('PROGRESS ')) open = (JSON.parse(text.slice(9)) as { open: number }).open;
      },
      (settings.holdSeconds + 120) * 1000,
    );
    result = JSON.parse(line) as typeof result;
  } finally {
    clearInterval(timer);
    clearInterval(sampleOpen);
  }
  // RSS per open stream: (RSS − idle) / open, over the samples with the most streams open.
  const top = Math.max(...openSamples.map((sample) => sample.open), 0);
  const best = openSamples.filter((sample) => sample.open >= top * 0.95 && sample.open > 0);
  const perStream = median(best.map((sample) => (sample.rss - rssIdle) / sample.open));
  return {
    target: target.id,
    streams: result.streams,
    holdSeconds: settings.holdSeconds,
    completed: result.completed,
    failed: result.failed,
    stalled: result.stalled,
    maxOpen: result.maxOpen,
    rssIdleMb: mb(rssIdle),
    rssPlateauMb: mb(median(best.map((sample) => sample.rss))),
    perStreamKb: perStream / 1024,
    cpuSeconds: sumCpu(target.pids) - cpuBefore,
  };
}

async function soak(target: RunningTarget, context: CallContext, report: BenchReport): Promise<Soak> {
  const chat = SCENARIOS.find((s) => s.id === 'chat')?.call('switchyard', context);
  const stream = SCENARIOS.find((s) => s.id === 'chat-stream')?.call('switchyard', context);
  if (chat === undefined || stream === undefined) throw new Error('soak scenarios missing');
  const peak = async (call: HttpCall, id: string) => {
    const measured = findCell(report, target.id, id)?.rps;
    if (measured !== undefined) return measured;
    // Warmed up as the full run's cells are: after 3 s a process still compiles, and measured
    // a chat peak about half of the full run's, which set the soak at a quarter of the peak.
    await runLoad({ baseUrl: target.url, call, connections: settings.connections, seconds: settings.warmupSeconds });
    return (await runLoad({ baseUrl: target.url, call, connections: settings.connections, seconds: settings.seconds })).rps;
  };
  // Half of the peak capacity, shared between the two: each at a quarter of its own peak.
  const [chatRate = 0, streamRate = 0] = settings.soakRates ?? [(await peak(chat, 'chat')) / 4, (await peak(stream, 'chat-stream')) / 4];
  if (!(chatRate > 0 && streamRate > 0)) throw new Error('--soak-rates needs two rates above 0, as CHAT,STREAM (req/s)');
  const rates = { chat: chatRate, 'chat-stream': streamRate };
  const seconds = settings.soakSeconds;
  log(`soak: ${seconds} s at chat ${rates.chat.toFixed(0)} + stream ${rates['chat-stream'].toFixed(0)} req/s`);
  const started = Date.now();
  const samples: { t: number; rssMb: number }[] = [];
  const timer = setInterval(() => samples.push({ t: (Date.now() - started) / 1000, rssMb: mb(sumRss(target.pids)) }), 5_000);
  const previousTool = loadTool();
  setLoadTool('autocannon'); // wrk cannot hold a fixed rate
  let loads: LoadResult[];
  try {
    loads = await Promise.all([
      runLoad({ baseUrl: target.url, call: chat, connections: 20, seconds, rate: rates.chat }),
      runLoad({ baseUrl: target.url, call: stream, connections: 20, seconds, rate: rates['chat-stream'] }),
    ]);
  } finally {
    clearInterval(timer);
    setLoadTool(previousTool);
  }
  const first = medianRssMb(samples, 60, 120);
  const last = medianRssMb(samples, seconds - 60, seconds + 1);
  return {
    target: target.id,
    seconds,
    rates,
    requests: loads.reduce((total, load) => total + load.requests, 0),
    errors: loads.reduce((total, load) => total + load.errors, 0),
    rssFirstMb: first,
    rssLastMb: last,
    growth: last / first - 1,
    samples,
  };
}

async function main(): Promise<number> {
  const began = Date.now();
  const report: BenchReport = {
    mode: soakMode ? 'soak' : smoke ? 'smoke' : 'full',
    machine: machineInfo(),
    settings: {
      ...settings,
      ...(readAfterTrim && { rssAfterIdleTrimMs: IDLE_TRIM_AFTER_MS }),
      pinned: isPinning(),
      loadTool: loadTool(),
      targets: targetIds,
      scenarios: scenarioIds,
    },
    cells: [],
    targets: [],
    streams: [],
    failures: [],
  };
  log(`mode ${report.mode}; load ${loadTool()}; pinning ${isPinning() ? 'load+simulator+redis on cpu 0, targets on cpu 1' : 'off'}`);
  const simulator = await startSimulator();
  const context: CallContext = { key: BENCH_KEY, simulatorUrl: simulator.url };
  /** Each target's instances that started (a target none of whose instances started is left out). */
  const running = new Map<TargetId, RunningTarget[]>();
  const everyInstance = () => [...running.values()].flat();
  /** When each instance's last load run ended (for the idle trim's wait). */
  const lastLoadAt = new Map<RunningTarget, number>();
  try {
    // Every target is started up front and idles while another is measured; runs are then
    // interleaved (run 1 of every target, then run 2, …) so that noise from other work on the
    // machine lands on all targets alike and the ratios stay meaningful.
    for (const id of targetIds) {
      const instances: RunningTarget[] = [];
      const idleMb: number[] = [];
      let startError: string | undefined;
      for (let instance = 1; instance <= settings.instances; instance++) {
        log(`target ${id}: starting instance ${instance} of ${settings.instances}`);
        try {
          const target = await startTarget(id, simulator.url, { nodeArgs: targetNodeArgs });
          instances.push(target);
          await sleep(smoke ? 100 : 1000);
          idleMb.push(mb(sumRss(target.pids)));
        } catch (error) {
          startError = (error as Error).message;
          report.failures.push(`${id} instance ${instance}: could not start: ${startError.slice(0, 1500)}`);
        }
      }
      if (instances.length > 0) running.set(id, instances);
      report.targets.push({
        target: id,
        rssIdleMb: median(idleMb),
        rssAfterMb: Number.NaN,
        ...(instances.length === 0 && startError !== undefined && { startError: startError.slice(0, 200) }),
      });
    }
    if (soakMode) {
      const [target] = running.get('all') ?? everyInstance();
      if (target === undefined) throw new Error('no target to soak');
      report.soak = await soak(target, context, report);
    } else {
      for (const scenario of SCENARIOS.filter((s) => scenarioIds.includes(s.id))) {
        const plan: { id: TargetId; instances: Checked[] }[] = [];
        for (const [id, instances] of running) {
          const checked: Checked[] = [];
          for (const target of instances) {
            const call = scenario.call(target.kind, context);
            if (call === undefined) continue;
            const problem = await checkOnce(target.url, call);
            if (problem !== undefined) {
              report.failures.push(`${target.id} ${scenario.id}: ${problem}\n${target.output().slice(-2000)}`);
              log(`  ${target.id} ${scenario.id}: FAILED check: ${problem.slice(0, 200)}`);
              continue;
            }
            checked.push({ target, call });
          }
          if (checked.length > 0) plan.push({ id, instances: checked });
        }
        const runs = new Map<TargetId, Record<string, number>[]>();
        for (let run = 0; run < settings.runs; run++) {
          for (const { id, instances } of plan) {
            const instance = run % instances.length;
            const { target, call } = instances[instance] as Checked;
            // Each instance is warmed up just before its first run, not all up front, so that
            // the runs stay interleaved across targets.
            if (run < instances.length && settings.warmupSeconds > 0) {
              await runLoad({ baseUrl: target.url, call, connections: settings.connections, seconds: settings.warmupSeconds });
            }
            const raw = await measureRun(target, scenario.id, call, run, report.failures);
            lastLoadAt.set(target, Date.now());
            runs.set(id, [...(runs.get(id) ?? []), { ...raw, instance }]);
          }
        }
        for (const { id } of plan) {
          const cell = summarise(id, scenario.id, runs.get(id) ?? []);
          report.cells.push(cell);
          log(`  ${scenario.id} ${id}: ${cell.rps.toFixed(0)} req/s, lone p50 ${cell.loneP50Ms.toFixed(3)} ms, ttfb ${cell.ttfbP50Ms.toFixed(3)} ms, ${cell.cpuPer1k.toFixed(3)} cpu-s/1k, util ${cell.cpuUtil.toFixed(2)}, ${cell.errors} errors`);
        }
      }
      if (flags['no-streams'] !== true) {
        for (const id of [...running.keys()].filter((loaded) => settings.streamTargets.includes(loaded))) {
          // A fresh process of the same target: after the load runs a heap has grown, and it
          // shrinks while streams are held, which would hide what each stream costs.
          const target = await startTarget(id, simulator.url, { nodeArgs: targetNodeArgs });
          const hold = await holdStreams(target, context).finally(() => target.stop());
          if (hold === undefined) continue;
          report.streams.push(hold);
          if (hold.failed + hold.stalled > 0) report.failures.push(`${target.id} slow streams: ${hold.failed} failed, ${hold.stalled} stalled of ${hold.streams}`);
          log(`  slow streams ${target.id}: ${hold.completed}/${hold.streams} completed, ${hold.maxOpen} open at once, ${hold.perStreamKb.toFixed(1)} KB each`);
        }
      }
    }
    if (readAfterTrim) {
      // Read after every Switchyard target's idle trim ("Memory after load" in
      // docs/performance.md), which the slow streams' phase sometimes outlasted and sometimes did not.
      const trimmed = Math.max(0, ...[...lastLoadAt].filter(([t]) => t.kind === 'switchyard').map(([, at]) => at + IDLE_TRIM_AFTER_MS + TRIM_MARGIN_MS));
      const waitMs = trimmed - Date.now();
      if (waitMs > 0) {
        log(`waiting ${(waitMs / 1000).toFixed(0)} s for the targets' idle trim before reading their memory`);
        await sleep(waitMs);
      }
      // The trim waits for an idle second, which a loud host can put off past the margin.
      for (const deadline = Date.now() + TRIM_MARGIN_MS * 6; untrimmed(lastLoadAt).length > 0 && Date.now() < deadline; ) await sleep(1000);
    }
    const readBeforeTrim = readAfterTrim ? untrimmed(lastLoadAt) : [];
    await sleep(smoke ? 300 : 3000);
    for (const [id, instances] of running) {
      const summary = report.targets.find((t) => t.target === id);
      if (summary === undefined) continue;
      // One read per process, so that the parts make up the whole. The instance with the largest
      // process is reported (for one-process targets, the largest whole): the conservative
      // figure, as a pod's limit is set per process.
      const reads = instances.map((target) => target.pids.map((pid) => mb(rssBytes(pid))));
      const sums = reads.map((each) => each.reduce((total, value) => total + value, 0));
      const peaks = reads.map((each) => Math.max(...each));
      const largest = peaks.indexOf(Math.max(...peaks));
      const roles = instances[largest]?.roles;
      summary.rssAfterMb = sums[largest] ?? Number.NaN;
      summary.rssAfterByInstanceMb = sums;
      const late = readBeforeTrim.filter((untrimmedOne) => untrimmedOne.target.id === id).map(({ target, role }) => `instance ${instances.indexOf(target) + 1}${role === undefined ? '' : ` ${role}`}`);
      if (late.length > 0) summary.readBeforeTrim = late;
      if (roles !== undefined) summary.rssAfterByRoleMb = Object.fromEntries(roles.map((role, index) => [role, reads[largest]?.[index] ?? Number.NaN]));
    }
  } finally {
    await Promise.all(everyInstance().map((target) => target.stop()));
    await simulator.started.stop();
  }
  report.machine.loadAverageEnd = loadavg().map((value) => Number(value.toFixed(2)));
  report.settings.wallSeconds = Math.round((Date.now() - began) / 1000);

  const stamp = report.machine.date;
  const directory = flags.out ?? fileURLToPath(new URL(`./results/${stamp.slice(0, 10)}/`, import.meta.url));
  mkdirSync(directory, { recursive: true });
  const base = join(directory, `${report.mode}-${stamp.slice(11, 19).replaceAll(':', '')}`);
  const markdown = renderMarkdown(report);
  writeFileSync(`${base}.md`, markdown);
  writeFileSync(`${base}.json`, `${JSON.stringify({ ...report, goals: evaluateGoals(report) }, null, 2)}\n`);
  process.stdout.write(`${markdown}\n`);
  log(`wrote ${base}.md and .json in ${report.settings.wallSeconds} s`);
  // Smoke fails on any error or unstarted target: it guards the harness and the gateway's happy paths.
  if (smoke && report.failures.length > 0) {
    process.stderr.write(`smoke FAILED:\n${report.failures.join('\n')}\n`);
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
