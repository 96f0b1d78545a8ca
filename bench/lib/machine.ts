import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';

const require = createRequire(import.meta.url);

function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string }).version;
  } catch {
    try {
      // Packages whose exports hide package.json: walk up from the entry point.
      const entry = require.resolve(name);
      const root = entry.slice(0, entry.lastIndexOf(`node_modules/${name}/`) + `node_modules/${name}/`.length);
      return (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version: string }).version;
    } catch {
      return 'unknown';
    }
  }
}

function toolVersion(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.error !== undefined) return 'not installed';
  return `${result.stdout}${result.stderr}`.split('\n')[0]?.trim() ?? '';
}

export interface MachineInfo {
  date: string;
  nproc: number;
  cpuModel: string;
  memoryGb: number;
  kernel: string;
  node: string;
  packages: Record<string, string>;
  tools: Record<string, string>;
  gitCommit: string;
  /** Files of the gateway (libs, services, bin) changed but not committed when the run started. */
  uncommittedGatewayFiles: number;
  loadAverageStart: number[];
  loadAverageEnd?: number[];
}

export function machineInfo(): MachineInfo {
  const root = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return {
    date: new Date().toISOString(),
    nproc: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    packages: {
      switchyard: root.version,
      fastify: packageVersion('fastify'),
      undici: packageVersion('undici'),
      'eventsource-parser': packageVersion('eventsource-parser'),
      '@portkey-ai/gateway': packageVersion('@portkey-ai/gateway'),
      '@hono/node-server': packageVersion('@hono/node-server'),
      autocannon: packageVersion('autocannon'),
      vitest: packageVersion('vitest'),
    },
    tools: {
      wrk: toolVersion('wrk', ['--version']),
      'redis-server': toolVersion('redis-server', ['--version']),
      taskset: toolVersion('taskset', ['--version']),
    },
    loadAverageStart: os.loadavg().map((value) => Number(value.toFixed(2))),
    uncommittedGatewayFiles: spawnSync('git', ['status', '--porcelain', '--', 'libs', 'services', 'bin'], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter((line) => line.trim() !== '').length,
    gitCommit: spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim(),
  };
}
