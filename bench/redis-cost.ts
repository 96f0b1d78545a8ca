/**
 * What Redis itself spends per request on Switchyard's scripts, without the gateway around
 * them: the limiter (admit, then release and reconcile, as a request makes them) and the usage
 * aggregator (one event per request), in batches of the sizes one event-loop turn produces.
 * Redis's CPU comes from `INFO cpu`, the commands the scripts call from `INFO commandstats`;
 * the client's (this process: building, sending and decoding the calls) from `process.cpuUsage`.
 *
 *   node bench/redis-cost.ts [--requests 20000]
 *
 * In the full bench Redis shares the load core, so this is the part of `all` + Redis's cost
 * that its table cannot show (docs/performance.md, "Redis: fewer calls from Lua").
 */
import { parseArgs } from 'node:util';
import { createRedisLimiter } from '@switchyard/ratelimit/redis';
import type { UsageEvent } from '@switchyard/usage-events';
import { createRedisUsageAggregator } from '@switchyard/usage-events/redis';
import { Redis } from 'ioredis';
import { startProcess, waitRedis } from './lib/processes.ts';
import { freePort } from './lib/util.ts';

const { values } = parseArgs({ options: { requests: { type: 'string' } } });
const requests = Number(values.requests ?? 20_000);
const BATCHES = [1, 8, 32];
const TENANT_LIMITS = { rpm: 100_000_000, tpm: 1_000_000_000, concurrency: 100_000 };

const port = await freePort();
const server = startProcess('redis-server', 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
await waitRedis(server, port);
const url = `redis://127.0.0.1:${port}`;
const admin = new Redis(url);

async function redisCpuSeconds(): Promise<number> {
  const info = await admin.info('cpu');
  let seconds = 0;
  for (const match of info.matchAll(/used_cpu_(?:sys|user):([\d.]+)/g)) seconds += Number(match[1]);
  return seconds;
}

/** Runs `turn(size)` until `requests` requests were made; returns Redis's µs, this process's µs and script calls per request. */
async function measure(size: number, turn: (size: number) => Promise<void>): Promise<string> {
  for (let made = 0; made < 2_000; made += size) await turn(size);
  await admin.config('RESETSTAT');
  const before = await redisCpuSeconds();
  const clientBefore = process.cpuUsage();
  for (let made = 0; made < requests; made += size) await turn(size);
  const client = process.cpuUsage(clientBefore);
  const cpuMicros = ((await redisCpuSeconds()) - before) * 1e6;
  const stats = await admin.info('commandstats');
  let calls = 0;
  for (const match of stats.matchAll(/cmdstat_(\w+):calls=(\d+)/g)) {
    if (!['fcall', 'function', 'evalsha', 'eval', 'info', 'config'].includes(match[1] as string)) calls += Number(match[2]);
  }
  const clientMicros = client.user + client.system;
  return `${(cpuMicros / requests).toFixed(1)} µs, ${(calls / requests).toFixed(1)} calls from Lua · client ${(clientMicros / requests).toFixed(1)} µs`;
}

let sequence = 0;
const limiter = createRedisLimiter({ url });
await limiter.ready();
const limiterTurn = async (size: number) => {
  const identities = Array.from({ length: size }, () => ({ tenantId: 'bench', keyId: 'bench-key', requestId: `request-${sequence++}` }));
  const admitted = await Promise.all(
    identities.map((identity) => limiter.admit({ ...identity, tenantLimits: TENANT_LIMITS, keyLimits: {}, estimatedTokens: 100 })),
  );
  if (!admitted.every((result) => result.allowed)) throw new Error('the limiter refused a request');
  await Promise.all(
    identities.flatMap((identity, index) => [
      limiter.release(identity),
      limiter.reconcile({ ...identity, tenantLimits: TENANT_LIMITS, keyLimits: {}, deltaTokens: -20, admittedAt: admitted[index]?.admittedAt }),
    ]),
  );
};

const aggregator = createRedisUsageAggregator({ url });
const aggregatorTurn = async (size: number) => {
  const events = Array.from(
    { length: size },
    (): UsageEvent => ({
      requestId: `request-${sequence++}`,
      tenantId: 'bench',
      keyId: 'bench-key',
      format: 'chat-completions',
      model: 'bench-chat',
      status: 200,
      stream: false,
      inputTokens: 12,
      outputTokens: 40,
      estimated: false,
      latencyMs: 2,
      occurredAt: Date.now(),
    }),
  );
  await aggregator.record(events);
};

try {
  const lines = [`Redis and client CPU per request, ${requests} requests per cell (Redis CPU from INFO cpu)`, '', '| requests per turn | limiter (admit + release + reconcile) | usage aggregator (one event) |', '|---:|---:|---:|'];
  for (const size of BATCHES) lines.push(`| ${size} | ${await measure(size, limiterTurn)} | ${await measure(size, aggregatorTurn)} |`);
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await limiter.close();
  await aggregator.close();
  admin.disconnect();
  await server.stop();
}
