import { getFreePort } from '@switchyard/testkit';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDirectory, writeConfig } from './scratch.ts';
import { startSwitchyard, type SwitchyardProcess } from './start-process.ts';
import { INTERNAL_TOKEN } from './topology.ts';

/** A split deployment with several ingresses sharing one Redis: what the limits tests run against. */
export interface Replicas {
  simulator: SwitchyardProcess;
  catalog: SwitchyardProcess;
  router: SwitchyardProcess;
  ingresses: SwitchyardProcess[];
  /** Every process, simulator included, for output checks and shutdown. */
  processes: SwitchyardProcess[];
  /** The file holding the config text (behind the served path's symlink with `linkConfig`). */
  configFile: string;
  stop(): Promise<void>;
}

/**
 * Starts the simulator, then catalog + router + `ingresses` ingresses, all on `redisUrl`. The
 * config is written by `config(simulatorUrl)`; `env` goes to every Switchyard process.
 */
export async function startReplicas(options: {
  redisUrl: string;
  ingresses: number;
  config: (simulatorUrl: string) => string;
  env?: Record<string, string>;
  /** Serve the config through a symlink, so edits to `configFile` escape the catalog's file watcher. */
  linkConfig?: boolean;
}): Promise<Replicas> {
  const processes: SwitchyardProcess[] = [];
  const stop = async () => {
    await Promise.all(processes.map((process) => process.stop()));
  };
  try {
    const simulator = await startSwitchyard('simulator', { port: await getFreePort(), readyPath: '/_sim/stats' });
    processes.push(simulator);
    const written = options.linkConfig === true ? writeLinkedConfig(options.config(simulator.url)) : undefined;
    const config = written?.path ?? writeConfig(options.config(simulator.url));
    const env = { REDIS_URL: options.redisUrl, SWITCHYARD_INTERNAL_TOKEN: INTERNAL_TOKEN, ...options.env };
    const catalog = await startSwitchyard('catalog', { port: await getFreePort(), config, env });
    processes.push(catalog);
    const router = await startSwitchyard('router', { port: await getFreePort(), env: { ...env, SWITCHYARD_CATALOG_URL: catalog.url } });
    processes.push(router);
    const ingresses = await Promise.all(
      Array.from({ length: options.ingresses }, async () =>
        startSwitchyard('ingress', {
          port: await getFreePort(),
          env: { ...env, SWITCHYARD_CATALOG_URL: catalog.url, SWITCHYARD_ROUTER_URL: router.url },
        }),
      ),
    );
    processes.push(...ingresses);
    return { simulator, catalog, router, ingresses, processes, configFile: written?.target ?? config, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A config with one chat model `m` served by the simulator, and these tenants (YAML flow mappings, one each). */
export function chatModelConfig(simulatorUrl: string, tenants: string[]): string {
  return `
providers:
  up: { protocol: chat-completions, baseUrl: ${simulatorUrl}/v1 }
models:
  - { name: m, deployments: [{ provider: up, model: sim }] }
tenants:
${tenants.map((tenant) => `  - ${tenant}\n`).join('')}`;
}

/** A config whose one model `m` is served by the built-in simulator, with one tenant `t` holding `key`. */
export function simulatorConfig(key: string): string {
  return `
providers:
  sim: { protocol: simulator }
models:
  - { name: m, deployments: [{ provider: sim, model: sim-model }] }
tenants:
  - id: t
    keys: [{ id: k, key: ${key} }]
`;
}


/**
 * A config served as `<dir>/served/config.yaml`, a symlink to `<dir>/real/config.yaml`. The
 * catalog watches the served directory, so editing the real file is seen only on SIGHUP: a
 * test of SIGHUP then cannot pass thanks to the watcher.
 */
export function writeLinkedConfig(text: string): { path: string; target: string } {
  const directory = scratchDirectory('config');
  mkdirSync(join(directory, 'real'));
  mkdirSync(join(directory, 'served'));
  const target = join(directory, 'real', 'config.yaml');
  const path = join(directory, 'served', 'config.yaml');
  writeFileSync(target, text);
  symlinkSync(target, path);
  return { path, target };
}

export interface Answer {
  status: number;
  headers: Headers;
  body: string;
}

/**
 * A chat completion, read to its end. `stream` asks for SSE with the usage chunk; `signal`
 * bounds the whole exchange, so a hang shows as an AbortError rather than a stuck test.
 */
export async function postChat(
  url: string,
  key: string,
  content: string,
  options: { stream?: boolean; signal?: AbortSignal; model?: string } = {},
): Promise<Answer> {
  const stream = options.stream ?? false;
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: options.model ?? 'm',
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
      messages: [{ role: 'user', content }],
    }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

/** Total tokens of a chat answer, from its usage (the usage chunk for streams); 0 without one. */
export function usageOf(body: string): number {
  if (body.startsWith('{')) return (JSON.parse(body) as { usage?: { total_tokens?: number } }).usage?.total_tokens ?? 0;
  const usageLine = body.split('\n').find((line) => line.startsWith('data: {') && line.includes('"choices":[]'));
  return usageLine === undefined ? 0 : ((JSON.parse(usageLine.slice(6)) as { usage?: { total_tokens?: number } }).usage?.total_tokens ?? 0);
}

/** The value of an unlabelled gauge or counter in a process's `/metrics`, undefined when absent. */
export async function metricValue(url: string, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((entry) => entry.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition` every `intervalMs` until it holds or `limitMs` has passed; returns whether it held. */
export async function eventually(condition: () => Promise<boolean>, limitMs: number, intervalMs = 50): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(intervalMs);
  }
}
