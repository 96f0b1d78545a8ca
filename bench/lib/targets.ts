import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { machine } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { imageTree } from './image-tree.ts';
import { LOAD_CPU, startProcess, TARGET_CPU, waitReady, waitRedis, type Started } from './processes.ts';
import { scratchDirectory } from './scratch.ts';
import { SWITCHYARD_MODEL, type TargetKind } from './scenarios.ts';
import { freePort } from './util.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Built on first use: the stripped tree the image ships (image-tree.ts). */
const bin = () => join(imageTree(ROOT), 'bin/switchyard.js');
const NULL_PROXY = join(ROOT, 'bench/null-proxy.ts');
const STACK_FLOOR = join(ROOT, 'bench/stack-floor.ts');
const PORTKEY = join(ROOT, 'node_modules/@portkey-ai/gateway/build/start-server.js');
const PORTKEY_COMPAT = join(ROOT, 'bench/lib/portkey-compat.ts');

export const BENCH_KEY = 'sk-sy-bench-tenant-key-0123456789abcdef';

export const TARGET_IDS = ['direct', 'null', 'stack', 'all', 'all-redis', 'split', 'portkey'] as const;
/** Run unless --targets says otherwise; `stack` is asked for by name (see docs/performance.md). */
export const DEFAULT_TARGET_IDS: readonly TargetId[] = ['direct', 'null', 'all', 'all-redis', 'split', 'portkey'];
export type TargetId = (typeof TARGET_IDS)[number];

export const TARGET_TITLES: Record<TargetId, string> = {
  direct: 'simulator direct (floor)',
  null: 'null proxy (Node floor)',
  stack: 'stack floor (fastify + undici, no features)',
  all: 'switchyard all (in-memory)',
  'all-redis': 'switchyard all + Redis limits',
  split: 'switchyard split (catalog+router+ingress)',
  portkey: 'Portkey 1.15.2',
};

export interface RunningTarget {
  id: TargetId;
  kind: TargetKind;
  url: string;
  /** The processes whose CPU and memory are the target's (the simulator upstream excluded). */
  pids: number[];
  /** What each of `pids` is, where a target has several processes (split). */
  roles?: string[];
  /** What the target's processes printed (for failure reports). */
  output(): string;
  /** What each of `pids` printed, in their order. */
  outputs(): string[];
  stop(): Promise<void>;
}

/** Limits set on the bench tenant in every Switchyard target: enforced, never refusing. */
const LIMITS = '{ rpm: 100000000, tpm: 1000000000, concurrency: 100000 }';

function switchyardConfig(simulatorUrl: string): string {
  return `
providers:
  up-chat: { protocol: chat-completions, baseUrl: ${simulatorUrl}/v1, apiKey: sim-upstream-key }
  up-messages: { protocol: messages, baseUrl: ${simulatorUrl}, apiKey: sim-upstream-key }
  up-gemini: { protocol: generate-content, baseUrl: ${simulatorUrl}, apiKey: sim-upstream-key }
models:
  - { name: ${SWITCHYARD_MODEL.chat}, deployments: [{ provider: up-chat, model: sim-bench }], maxOutputTokens: 4096 }
  - { name: ${SWITCHYARD_MODEL.messages}, deployments: [{ provider: up-messages, model: sim-bench }], maxOutputTokens: 4096 }
  - { name: ${SWITCHYARD_MODEL.gemini}, deployments: [{ provider: up-gemini, model: sim-bench }], maxOutputTokens: 4096 }
tenants:
  - id: bench
    models: ["*"]
    limits: ${LIMITS}
    keys:
      - { id: bench-key, key: ${BENCH_KEY} }
`;
}

/**
 * Switchyard runs with the process settings its image sets (`NODE_OPTIONS`, and jemalloc as its
 * malloc through `LD_PRELOAD`), read from the recipe so the two cannot drift. The image links
 * its jemalloc to an architecture-independent path; here the link's target is used, on this
 * machine, when libjemalloc2 is installed (`apt-get install libjemalloc2`), and the report says
 * which malloc ran.
 */
function imageEnv(): { env: Record<string, string>; malloc: string } {
  const recipe = readFileSync(join(ROOT, 'deploy/Dockerfile'), 'utf8');
  const setting = (name: string): string => {
    const value = new RegExp(`\\b${name}=(\\S+)`).exec(recipe)?.[1];
    if (value === undefined) throw new Error(`deploy/Dockerfile sets no ${name}`);
    return value;
  };
  const env: Record<string, string> = { NODE_OPTIONS: setting('NODE_OPTIONS') };
  const preload = setting('LD_PRELOAD');
  const link = [...recipe.matchAll(/ln -s ((?:[^\s$]|\$\(uname -m\))+) (\S+)/g)].find((match) => match[2] === preload);
  if (link === undefined) throw new Error(`deploy/Dockerfile makes no link at ${preload}, its LD_PRELOAD`);
  const here = (link[1] ?? '').replace('$(uname -m)', machine());
  if (!existsSync(here)) return { env, malloc: `glibc's malloc: the image preloads jemalloc, which is not installed here (${here} is missing)` };
  env.LD_PRELOAD = here;
  return { env, malloc: `jemalloc (LD_PRELOAD=${here}), as the image` };
}

const IMAGE = imageEnv();
/** Which malloc the Switchyard processes ran on, for the report. */
export const SWITCHYARD_MALLOC = IMAGE.malloc;

/**
 * Set explicitly (it is the gateway's default) so that the runner knows when a target that
 * went idle has trimmed its heap, and reads its memory after the runs past that point.
 */
export const IDLE_TRIM_AFTER_MS = 300_000;

/** Whether a Switchyard process's output has its idle heap trim's line (at info) logged after `since` (epoch ms). */
export function trimmedSince(output: string, since: number): boolean {
  for (const line of output.split('\n')) {
    if (line.includes('"msg":"idle heap trim"') && Number(/"time":(\d+)/.exec(line)?.[1] ?? 0) > since) return true;
  }
  return false;
}

const SIMULATOR_ENV = { LOG_LEVEL: 'info', SWITCHYARD_SHUTDOWN_GRACE_MS: '2000', NODE_ENV: 'production' };
const SWITCHYARD_ENV = { ...SIMULATOR_ENV, ...IMAGE.env, SWITCHYARD_IDLE_TRIM_AFTER_MS: String(IDLE_TRIM_AFTER_MS) };

/** How a target's measured Node processes start: options before the script, and a command they run under (valgrind). */
export interface Launch {
  nodeArgs?: readonly string[];
  wrap?: readonly string[];
}

/**
 * Starts `node <launch.nodeArgs> <args>` on the target core, under `launch.wrap` when one is
 * given, and waits until `ready` answers (longer under a wrapper: valgrind starts Node in tens of
 * seconds).
 */
async function startNode(name: string, launch: Launch, args: string[], ready: { url: string; anyStatus?: boolean }, env?: Record<string, string>): Promise<Started> {
  const [wrapper, ...prefix] = launch.wrap ?? [];
  const node = [...(launch.nodeArgs ?? []), ...args];
  const [command, argv] = wrapper === undefined ? [process.execPath, node] : [wrapper, [...prefix, process.execPath, ...node]];
  const started = startProcess(name, command, argv, { cpu: TARGET_CPU, env });
  await waitReady(started, ready.url, { anyStatus: ready.anyStatus, timeoutMs: wrapper === undefined ? undefined : 300_000 });
  return started;
}

async function switchyard(
  target: string,
  config: string | undefined,
  env: Record<string, string>,
  launch: Launch = {},
  fixedPort?: number,
): Promise<{ started: Started; url: string }> {
  const port = fixedPort ?? (await freePort());
  const args = [bin(), target, '--port', String(port), '--host', '127.0.0.1', ...(config === undefined ? [] : ['--config', config])];
  const url = `http://127.0.0.1:${port}`;
  const started = await startNode(`switchyard ${target}`, launch, args, { url: `${url}/readyz` }, { ...SWITCHYARD_ENV, ...env });
  return { started, url };
}

/** The upstream simulator (on the load core): every target's upstream, and the direct target's twin. */
export async function startSimulator(cpu: string = LOAD_CPU): Promise<{ started: Started; url: string }> {
  const port = await freePort();
  const started = startProcess('simulator', process.execPath, [bin(), 'simulator', '--port', String(port), '--host', '127.0.0.1'], { cpu, env: SIMULATOR_ENV });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(started, `${url}/_sim/stats`);
  return { started, url };
}

/** The processes `startTarget`'s launch applies to, those a request passes through: all but split's catalog. */
export function launchedPids(target: RunningTarget): number[] {
  return target.pids.filter((_, index) => target.roles?.[index] !== 'catalog');
}

/**
 * Starts one target in front of the simulator at `simulatorUrl`. `launch` applies to the
 * processes a request passes through (not split's catalog): options such as --cpu-prof, or a
 * wrapper such as valgrind.
 */
export async function startTarget(id: TargetId, simulatorUrl: string, launch: Launch = {}): Promise<RunningTarget> {
  const directory = scratchDirectory(id);
  const config = join(directory, 'config.yaml');
  writeFileSync(config, switchyardConfig(simulatorUrl));
  const stopAll = (list: Started[]) => async () => {
    for (const started of [...list].reverse()) await started.stop();
  };
  const outputOf = (list: Started[]) => () => list.map((started) => `--- ${started.name}\n${started.output().slice(-3000)}`).join('\n');
  const outputsOf = (list: Started[]) => () => list.map((started) => started.output());
  switch (id) {
    case 'direct': {
      // A second simulator, on the target core: the floor every other target is compared to.
      const { started, url } = await startSimulator(TARGET_CPU);
      return { id, kind: 'direct', url, pids: [started.pid], output: outputOf([started]), outputs: outputsOf([started]), stop: stopAll([started]) };
    }
    case 'null':
    case 'stack': {
      // Both pass the client's chat-completions body through to the simulator.
      const port = await freePort();
      const script = id === 'null' ? NULL_PROXY : STACK_FLOOR;
      const url = `http://127.0.0.1:${port}`;
      const started = await startNode(TARGET_TITLES[id], launch, [script, '--port', String(port), '--host', '127.0.0.1', '--upstream', simulatorUrl], { url: `${url}/_sim/stats` });
      return { id, kind: 'null', url, pids: [started.pid], output: outputOf([started]), outputs: outputsOf([started]), stop: stopAll([started]) };
    }
    case 'all': {
      const { started, url } = await switchyard('all', config, {}, launch);
      return { id, kind: 'switchyard', url, pids: [started.pid], output: outputOf([started]), outputs: outputsOf([started]), stop: stopAll([started]) };
    }
    case 'all-redis': {
      const redisPort = await freePort();
      const redis = startProcess('redis-server', 'redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        cpu: LOAD_CPU,
      });
      await waitRedis(redis, redisPort);
      try {
        const { started, url } = await switchyard('all', config, { REDIS_URL: `redis://127.0.0.1:${redisPort}` }, launch);
        return { id, kind: 'switchyard', url, pids: [started.pid], output: outputOf([redis, started]), outputs: outputsOf([started]), stop: stopAll([redis, started]) };
      } catch (error) {
        await redis.stop();
        throw error;
      }
    }
    case 'split': {
      const list: Started[] = [];
      try {
        const catalog = await switchyard('catalog', config, {});
        list.push(catalog.started);
        // Router and ingress only need the catalog to be up: start them side by side.
        const routerPort = await freePort();
        const [router, ingress] = await Promise.all([
          switchyard('router', undefined, { SWITCHYARD_CATALOG_URL: catalog.url }, launch, routerPort),
          switchyard('ingress', undefined, { SWITCHYARD_CATALOG_URL: catalog.url, SWITCHYARD_ROUTER_URL: `http://127.0.0.1:${routerPort}` }, launch),
        ]);
        list.push(router.started, ingress.started);
        return { id, kind: 'switchyard', url: ingress.url, pids: list.map((started) => started.pid), roles: ['catalog', 'router', 'ingress'], output: outputOf(list), outputs: outputsOf(list), stop: stopAll(list) };
      } catch (error) {
        await stopAll(list)();
        throw error;
      }
    }
    case 'portkey': {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const started = await startNode('portkey', launch, ['--import', PORTKEY_COMPAT, PORTKEY, `--port=${port}`, '--headless'], { url: `${url}/`, anyStatus: true }, {
        NODE_ENV: 'production',
        PORTKEY_BENCH_HOST: '127.0.0.1',
      });
      return { id, kind: 'portkey', url, pids: [started.pid], output: outputOf([started]), outputs: outputsOf([started]), stop: stopAll([started]) };
    }
  }
}
