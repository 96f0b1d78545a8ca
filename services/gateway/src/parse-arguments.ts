export const TARGETS = ['all', 'ingress', 'router', 'catalog', 'worker', 'simulator'] as const;
export type Target = (typeof TARGETS)[number];

export interface CliOptions {
  target: Target;
  config: string | undefined;
  port: number;
  host: string;
}

export class UsageError extends Error {}

export const USAGE = `Usage: switchyard <${TARGETS.join('|')}> [--config FILE] [--port N] [--host H]

Environment: SWITCHYARD_CONFIG, PORT, HOST, REDIS_URL, SWITCHYARD_ROUTER_URL,
SWITCHYARD_CATALOG_URL, SWITCHYARD_ADMIN_TOKEN, LOG_LEVEL.`;

/** Flags win over their environment twins (design §7). */
export function parseArguments(argv: string[], env: Record<string, string | undefined>): CliOptions {
  const [target, ...rest] = argv;
  if (target === undefined || !(TARGETS as readonly string[]).includes(target)) {
    throw new UsageError(target === undefined ? 'Missing target.' : `Unknown target '${target}'.`);
  }
  const flags: Record<string, string> = {};
  for (let index = 0; index < rest.length; index++) {
    const flag = rest[index] ?? '';
    const [name, inline] = flag.split('=', 2) as [string, string | undefined];
    if (!['--config', '--port', '--host'].includes(name)) throw new UsageError(`Unknown flag '${flag}'.`);
    const value = inline ?? rest[++index];
    if (value === undefined) throw new UsageError(`Flag ${name} needs a value.`);
    flags[name] = value;
  }
  const portText = flags['--port'] ?? env.PORT ?? '8080';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`Invalid port '${portText}'.`);
  return {
    target: target as Target,
    config: flags['--config'] ?? env.SWITCHYARD_CONFIG,
    port,
    host: flags['--host'] ?? env.HOST ?? '0.0.0.0',
  };
}
