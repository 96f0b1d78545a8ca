import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { getFreePort } from './get-free-port.ts';
import type { RedisServer } from './redis-server.ts';
import { waitForRedis } from './send-redis-command.ts';

const running = new Set<ChildProcess>();

// A crashed or interrupted test run must not leave servers behind; 'exit' handlers may only do
// synchronous work, which kill() is.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Runs `redis-server` as a child process on a free port, without persistence. The port can be
 * taken between `getFreePort` and the server binding it (test files start servers in
 * parallel), so a failed first start is retried on another port.
 */
export async function startRedisProcess(): Promise<RedisServer> {
  const binary = findRedisServer();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnPort(binary, await getFreePort());
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

async function startOnPort(binary: string, port: number): Promise<RedisServer> {
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    const started = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // redis-server logs to stdout, including why it could not start ("Address already in use").
    let log = '';
    const collect = (chunk: Buffer): void => {
      log = (log + chunk.toString('utf8')).slice(-2_000);
    };
    started.stdout?.on('data', collect);
    started.stderr?.on('data', collect);
    running.add(started);
    started.once('exit', () => running.delete(started));
    child = started;
    try {
      await waitForRedis(url, 10_000, () => started.exitCode === null && started.signalCode === null);
    } catch (error) {
      await terminate(started, 'SIGKILL');
      throw new Error(`redis-server on port ${port} did not start${log === '' ? '' : `: ${log.trim()}`}`, { cause: error });
    }
  };

  const halt = async (signal: NodeJS.Signals): Promise<void> => {
    if (child === undefined) return;
    const current = child;
    child = undefined;
    await terminate(current, signal);
  };

  await start();
  return {
    url,
    stop: () => halt('SIGTERM'),
    kill: () => halt('SIGKILL'),
    restart: async () => {
      await halt('SIGTERM');
      await start();
    },
  };
}

async function terminate(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  // A server stuck in shutdown must not hang the suite.
  const escalation = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(escalation);
}

function findRedisServer(): string {
  const directories = [...(process.env.PATH ?? '').split(delimiter).filter((entry) => entry !== ''), '/usr/bin', '/usr/local/bin'];
  for (const directory of directories) {
    const candidate = join(directory, 'redis-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  throw new Error('No container runtime answered and no redis-server binary was found on PATH or in /usr/bin');
}
