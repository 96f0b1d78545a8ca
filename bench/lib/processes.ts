import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { sleep } from './util.ts';

export interface Started {
  name: string;
  pid: number;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Can this machine pin processes to cores (2+ cores and a working taskset)? */
export function pinningAvailable(): boolean {
  const probe = spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
  return probe.status === 0;
}

let pinning = false;
export function setPinning(enabled: boolean): void {
  pinning = enabled;
}
export function isPinning(): boolean {
  return pinning;
}

/** Where the load generator, the simulator upstream and Redis run. */
export const LOAD_CPU = '0';
/** Where the process(es) under test run. */
export const TARGET_CPU = '1';

/**
 * Starts a process, under `taskset -c <cpu>` when pinning is on (taskset execs the command, so
 * the pid is the real process and every thread it starts inherits the mask).
 */
export function startProcess(name: string, command: string, args: string[], options: { cpu?: string; env?: Record<string, string>; cwd?: string } = {}): Started {
  const [file, argv] = pinning && options.cpu !== undefined ? ['taskset', ['-c', options.cpu, command, ...args]] : [command, args];
  const child = spawn(file, argv, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.pid === undefined) throw new Error(`could not start ${name}: ${file}`);
  return {
    name,
    pid: child.pid,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killed = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
      if (!killed) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/** Waits until `url` answers (any status when `anyStatus`, else 200). */
export async function waitReady(started: Started, url: string, options: { anyStatus?: boolean; timeoutMs?: number } = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null) throw new Error(`${started.name} exited with ${started.child.exitCode}:\n${started.output().slice(-4000)}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.status === 200 || options.anyStatus === true) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  await started.stop();
  throw new Error(`${started.name}: ${url} not ready in time:\n${started.output().slice(-4000)}`);
}

/** Waits for a TCP port by trying a Redis PING over a raw socket. */
export async function waitRedis(started: Started, port: number): Promise<void> {
  const { connect } = await import('node:net');
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null) throw new Error(`${started.name} exited:\n${started.output()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.setTimeout(1000);
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
      socket.once('timeout', () => {
        socket.destroy();
        resolve(false);
      });
    });
    if (ok) return;
    await sleep(100);
  }
  throw new Error('redis-server not ready in time');
}
