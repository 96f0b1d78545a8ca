/**
 * Instructions per request: each target's processes run under valgrind's callgrind, which counts
 * the instructions they execute rather than the seconds they take. On a shared host a target's
 * CPU per request moves by a third from run to run (docs/performance.md, "Run 44"); its count of
 * instructions by a few percent on streams and about a tenth on chat (major collections fall in
 * a round or not), so ratios between targets read from it move less.
 *
 *   node bench/instructions.ts [--targets null,all,all-redis,portkey] [--scenarios chat,chat-stream]
 *                              [--requests 2000] [--rounds 5] [--warmup 30000] [--connections 10] [--functions] [--out DIR]
 *
 * Each target is started once under callgrind with its instrumentation off. Per scenario it is
 * warmed up (V8 compiles what it will run), its instrumentation is turned on, and it serves one
 * round that is not counted, then `--rounds` rounds of `--requests` requests, with a dump of the
 * counters after each. A stream scenario makes half as many requests: each carries 50 events.
 * The cell is every round's instructions over every round's requests, so a major collection
 * that fell in one round is paid for as the target pays for it; the median round and the
 * rounds' spread stand beside it. The simulator, the load (autocannon, counted requests) and
 * Redis run natively, as in bench/run.ts.
 *
 * What it does not count: the kernel (callgrind sees user space only; `strace -c` counted 5.2
 * system calls a chat request for the null proxy and 4.4 for `all`) and waiting. Under valgrind
 * a process runs some 50× slower, so work done per second of wall time (timers, a scrape) weighs
 * 50× more per request than at full speed: a bias against whichever target has more of it. It
 * is how the event-loop monitor's 100 wakeups a second were found (docs/performance.md).
 *
 * With --functions, each cell also lists where its instructions went, by function (Node's perf
 * map names the code V8 compiled), in instructions-<time>-functions.md: a profile that two runs
 * of the same tree repeat, unlike a sampled one. Writing the map costs instructions too (up to
 * 90 k a stream for the null proxy): count without it, profile with it.
 *
 * Writes bench/results/<date>/instructions-<time>.{md,json} (or into --out).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runLoad, setLoadTool } from './lib/load.ts';
import { machineInfo } from './lib/machine.ts';
import { pinningAvailable, setPinning } from './lib/processes.ts';
import { checkOnce, SCENARIOS } from './lib/scenarios.ts';
import { scratchDirectory } from './lib/scratch.ts';
import { instructionsByFunction, readPerfMap } from './lib/summarise-callgrind.ts';
import { BENCH_KEY, launchedPids, startSimulator, startTarget, TARGET_IDS, TARGET_TITLES, type TargetId } from './lib/targets.ts';
import { log, median, sleep } from './lib/util.ts';

const { values } = parseArgs({
  options: {
    targets: { type: 'string' },
    scenarios: { type: 'string' },
    requests: { type: 'string' },
    rounds: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    functions: { type: 'boolean' },
    out: { type: 'string' },
  },
});
const targetIds = (values.targets?.split(',') ?? ['null', 'all', 'all-redis', 'portkey']) as TargetId[];
const scenarioIds = values.scenarios?.split(',') ?? ['chat', 'chat-stream'];
const requests = Number(values.requests ?? 2000);
const rounds = Number(values.rounds ?? 5);
/**
 * V8 still compiled now and then after 10,000 requests: at full speed, `all` compiled 135
 * functions between its 10,000th and 15,000th stream and 13 in the next 5,000 (--trace-opt).
 * Under callgrind a compilation costs millions of instructions, so a shorter warm-up counts it.
 */
const warmup = Number(values.warmup ?? 30_000);
/** A stream's requests each carry 50 events: half as many make a round of about the same length under callgrind. */
const STREAM_SHARE = 2;
const connections = Number(values.connections ?? 10);
for (const id of targetIds) if (!(TARGET_IDS as readonly string[]).includes(id) || id === 'direct') throw new Error(`not a target to count: ${id}`);
for (const id of scenarioIds) if (!SCENARIOS.some((scenario) => scenario.id === id)) throw new Error(`unknown scenario ${id}`);
for (const tool of ['valgrind', 'callgrind_control']) {
  if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).error !== undefined) throw new Error(`${tool} is not installed (apt-get install valgrind)`);
}
setPinning(availableParallelism() >= 2 && pinningAvailable());
setLoadTool('autocannon');

/** What one target counted in one scenario: per round, instructions and requests. */
interface Count {
  target: TargetId;
  scenario: string;
  instructions: number[];
  requests: number[];
  /** With --functions: the largest functions, per process, over all rounds. */
  functions?: { pid: number; role: string | undefined; top: { name: string; perRequest: number }[] }[];
}

const perRequest = (count: Count) => count.instructions.reduce((a, b) => a + b, 0) / count.requests.reduce((a, b) => a + b, 0);
const roundsPerRequest = (count: Count) => count.instructions.map((instructions, round) => instructions / (count.requests[round] as number));

const dumps = scratchDirectory('callgrind');
const WRAP = ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${join(dumps, 'callgrind.%p')}`];

function control(pid: number, ...args: string[]): void {
  const result = spawnSync('callgrind_control', [...args, String(pid)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`callgrind_control ${args.join(' ')} ${pid}: ${result.stdout}${result.stderr}`);
}

const dumpsOf = (pid: number) => readdirSync(dumps).filter((file) => file.startsWith(`callgrind.${pid}.`));

/** Dumps `pid`'s counters (which zeroes them) and answers the instructions counted since its last dump, and the dump's file. */
async function dumpInstructions(pid: number): Promise<{ instructions: number; file: string }> {
  const before = new Set(dumpsOf(pid));
  control(pid, '--dump');
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(100)) {
    const file = dumpsOf(pid).find((name) => !before.has(name));
    if (file === undefined) continue;
    const total = /^summary: (\d+)$/m.exec(readFileSync(join(dumps, file), 'utf8'))?.[1];
    // The file is written before its summary line: read again until it is whole.
    if (total !== undefined) return { instructions: Number(total), file: join(dumps, file) };
  }
  throw new Error(`callgrind wrote no dump for ${pid}`);
}

async function countTarget(id: TargetId, simulatorUrl: string): Promise<Count[]> {
  const target = await startTarget(id, simulatorUrl, { wrap: WRAP, nodeArgs: values.functions === true ? ['--perf-basic-prof'] : [] });
  const counts: Count[] = [];
  try {
    const pids = launchedPids(target);
    for (const scenarioId of scenarioIds) {
      const scenario = SCENARIOS.find((candidate) => candidate.id === scenarioId);
      const call = scenario?.call(target.kind, { key: BENCH_KEY, simulatorUrl });
      if (call === undefined) continue;
      const share = scenario?.stream === true ? STREAM_SHARE : 1;
      const problem = await checkOnce(target.url, call);
      if (problem !== undefined) throw new Error(`${id} ${scenarioId}: ${problem}`);
      const load = (amount: number) => runLoad({ baseUrl: target.url, call, connections, requests: amount, seconds: 3600 });
      const warmed = await load(Math.ceil(warmup / share));
      if (warmed.errors > 0) throw new Error(`${id} ${scenarioId}: ${warmed.errors} errors in the warm-up`);
      for (const pid of pids) control(pid, '--instr=on');
      // The first round with the instrumentation on counted up to 1.7× the next ones: run one
      // and drop it.
      await load(Math.ceil(requests / share));
      for (const pid of pids) await dumpInstructions(pid);
      const count: Count = { target: id, scenario: scenarioId, instructions: [], requests: [] };
      const files = new Map<number, string[]>(pids.map((pid) => [pid, []]));
      for (let round = 0; round < rounds; round += 1) {
        const result = await load(Math.ceil(requests / share));
        if (result.errors > 0) throw new Error(`${id} ${scenarioId}: ${result.errors} errors in round ${round + 1}`);
        let total = 0;
        for (const pid of pids) {
          const dump = await dumpInstructions(pid);
          total += dump.instructions;
          files.get(pid)?.push(dump.file);
        }
        count.instructions.push(total);
        count.requests.push(result.requests);
        log(`${id} ${scenarioId} round ${round + 1}: ${Math.round(total / result.requests)} instructions a request (${result.rps.toFixed(0)} req/s under callgrind)`);
      }
      for (const pid of pids) control(pid, '--instr=off');
      if (values.functions === true) {
        const counted = count.requests.reduce((a, b) => a + b, 0);
        count.functions = pids.map((pid) => ({ pid, role: target.roles?.[target.pids.indexOf(pid)], top: instructionsByFunction(files.get(pid) ?? [], readPerfMap(pid), counted) }));
      }
      counts.push(count);
    }
  } finally {
    await target.stop();
    for (const pid of target.pids) rmSync(`/tmp/perf-${pid}.map`, { force: true });
  }
  return counts;
}

function render(counts: Count[], machine: ReturnType<typeof machineInfo>): string {
  const cell = (target: TargetId, scenario: string) => counts.find((count) => count.target === target && count.scenario === scenario);
  const thousands = (value: number) => `${(value / 1000).toFixed(1)} k`;
  const lines = [
    `# Instructions per request (callgrind), ${machine.date.slice(0, 16).replace('T', ' ')}`,
    '',
    `Commit ${machine.gitCommit}${machine.uncommittedGatewayFiles > 0 ? ` (+${machine.uncommittedGatewayFiles} uncommitted gateway files)` : ''}, Node ${machine.node}, ${machine.cpuModel}.`,
    `Per cell: a warm-up of ${warmup} requests, then ${rounds} rounds of ${requests} at c=${connections} (streams: half), after one round not counted; all rounds' instructions over all their requests, then the median round and the rounds' spread.`,
    'User-space instructions of the target processes (not the simulator, the load or Redis). "null / target" is the null proxy\'s count over the target\'s: the share of the null proxy\'s rate the target would reach if both were bound by these instructions alone.',
    '',
    '| target | scenario | instructions / request | median round | spread | null / target | Portkey / target |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const count of counts) {
    const all = perRequest(count);
    const each = roundsPerRequest(count);
    const middle = median(each);
    const spread = (Math.max(...each) - Math.min(...each)) / middle;
    const floor = cell('null', count.scenario);
    const portkey = cell('portkey', count.scenario);
    lines.push(
      `| ${TARGET_TITLES[count.target]} | ${count.scenario} | ${thousands(all)} | ${thousands(middle)} | ${(spread * 100).toFixed(1)}% | ${floor === undefined ? '–' : (perRequest(floor) / all).toFixed(2)} | ${portkey === undefined ? '–' : (perRequest(portkey) / all).toFixed(2)} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function renderFunctions(counts: Count[]): string {
  const lines = ['# Instructions per request, by function (callgrind, exclusive)', ''];
  for (const count of counts) {
    for (const part of count.functions ?? []) {
      lines.push(`## ${TARGET_TITLES[count.target]}${part.role === undefined ? '' : ` (${part.role})`}, ${count.scenario}: ${(perRequest(count) / 1000).toFixed(1)} k a request`, '');
      lines.push('| instructions / request | share | function |', '|---:|---:|---|');
      for (const entry of part.top) lines.push(`| ${entry.perRequest.toFixed(0)} | ${((entry.perRequest / perRequest(count)) * 100).toFixed(1)}% | ${entry.name.replaceAll('|', '\\|')} |`);
      lines.push('');
    }
  }
  return `${lines.join('\n')}\n`;
}

const machine = machineInfo();
const simulator = await startSimulator();
const counts: Count[] = [];
try {
  for (const id of targetIds) counts.push(...(await countTarget(id, simulator.url)));
} finally {
  await simulator.started.stop();
}
const directory = values.out ?? fileURLToPath(new URL(`./results/${machine.date.slice(0, 10)}/`, import.meta.url));
mkdirSync(directory, { recursive: true });
const name = `instructions-${machine.date.slice(11, 19).replaceAll(':', '')}`;
const markdown = render(counts, machine);
writeFileSync(join(directory, `${name}.md`), markdown);
if (values.functions === true) writeFileSync(join(directory, `${name}-functions.md`), renderFunctions(counts));
writeFileSync(join(directory, `${name}.json`), `${JSON.stringify({ machine, settings: { warmup, rounds, requests, connections }, counts }, null, 2)}\n`);
process.stdout.write(markdown);
