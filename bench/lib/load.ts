import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isPinning, LOAD_CPU } from './processes.ts';
import { scratchDirectory } from './scratch.ts';
import type { HttpCall } from './scenarios.ts';

export interface LoadResult {
  tool: 'wrk' | 'autocannon';
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Transport errors, timeouts and non-2xx answers. */
  errors: number;
}

const WRK_SCRIPT = fileURLToPath(new URL('./wrk-report.lua', import.meta.url));
const require = createRequire(import.meta.url);

export function wrkAvailable(): boolean {
  return spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
}

let tool: 'wrk' | 'autocannon' = 'autocannon';
export function setLoadTool(name: 'wrk' | 'autocannon'): void {
  tool = name;
}
export function loadTool(): 'wrk' | 'autocannon' {
  return tool;
}

const scratch = scratchDirectory('load');
let bodies = 0;

function pinned(command: string, args: string[]): [string, string[]] {
  return isPinning() ? ['taskset', ['-c', LOAD_CPU, command, ...args]] : [command, args];
}

function run(command: string, args: string[], env: Record<string, string>, timeoutMs: number): Promise<string> {
  const [file, argv] = pinned(command, args);
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Bounded: the load tool is killed if it overruns its duration by far.
    const guard = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(guard);
      if (code === 0) resolve(stdout);
      else reject(new Error(`${command} exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

/**
 * Closed-loop load: `connections` clients back to back for `seconds`, from another process (pinned
 * to the load core). With `requests`, the load stops after that many answers instead (autocannon
 * only: wrk has no such bound) and `seconds` only bounds how long it may take.
 */
export async function runLoad(options: { baseUrl: string; call: HttpCall; connections: number; seconds: number; rate?: number; requests?: number }): Promise<LoadResult> {
  const { call } = options;
  const url = options.baseUrl + call.path;
  const seconds = Math.max(1, Math.round(options.seconds));
  if (tool === 'wrk' && options.rate === undefined && options.requests === undefined) {
    const bodyFile = join(scratch, `body-${bodies++}.json`);
    writeFileSync(bodyFile, call.body);
    const headers = Object.entries(call.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
    const out = await run(
      'wrk',
      ['-t1', `-c${options.connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', WRK_SCRIPT, ...headers, url],
      { BENCH_METHOD: 'POST', BENCH_BODY_FILE: bodyFile },
      (seconds + 30) * 1000,
    );
    const line = out.split('\n').find((text) => text.startsWith('BENCHJSON '));
    if (line === undefined) throw new Error(`wrk printed no result:\n${out}`);
    const r = JSON.parse(line.slice('BENCHJSON '.length)) as Record<string, number>;
    const num = (key: string) => r[key] ?? 0;
    const elapsed = num('duration_us') / 1e6;
    return {
      tool: 'wrk',
      requests: num('requests'),
      seconds: elapsed,
      rps: num('requests') / elapsed,
      p50Ms: num('p50_us') / 1000,
      p99Ms: num('p99_us') / 1000,
      errors: num('connect') + num('read') + num('write') + num('status') + num('timeout'),
    };
  }
  const cli = require.resolve('autocannon/autocannon.js');
  const headers = Object.entries(call.headers).flatMap(([name, value]) => ['-H', `${name}=${value}`]);
  const args = [cli, '--json', '-c', String(options.connections), '-d', String(seconds), '-m', 'POST', '-b', call.body, '-t', '10', ...headers];
  if (options.rate !== undefined) args.push('-R', String(Math.max(1, Math.round(options.rate))));
  if (options.requests !== undefined) args.push('-a', String(options.requests));
  args.push(url);
  const out = await run(process.execPath, args, {}, (seconds + 30) * 1000);
  const r = JSON.parse(out.trim().split('\n').pop() ?? '{}') as {
    requests: { total: number };
    latency: { p50: number; p99: number };
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
  };
  return {
    tool: 'autocannon',
    requests: r.requests.total,
    seconds: r.duration,
    rps: r.requests.total / r.duration,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    errors: r.errors + r.timeouts + r.non2xx,
  };
}
