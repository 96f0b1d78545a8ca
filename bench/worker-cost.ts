/**
 * What the usage worker costs per event, alone: routers' batches staged in a local Redis (ten
 * events each, the routers' own encoding), then `startWorker` moves them into BullMQ jobs and
 * counts them; this process's CPU (`process.cpuUsage`) from start until every job is complete,
 * over the events. `switchyard all` with Redis runs this worker in the process that serves
 * requests, so this is part of its cost per request (docs/performance.md, "Redis mode: the
 * worker inside `all`").
 *
 *   node bench/worker-cost.ts [--events 50000] [--rounds 3]
 */
import { parseArgs } from 'node:util';
import { encodeStagedBatch, stagedUsageKeys, USAGE_QUEUE_NAME, type UsageEvent } from '@switchyard/usage-events';
import { usageEvent } from '@switchyard/usage-events/test-events';
import { startWorker, type WorkerLogger } from '@switchyard/worker';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { startProcess, waitRedis } from './lib/processes.ts';
import { freePort, sleep } from './lib/util.ts';

const { values } = parseArgs({ options: { events: { type: 'string' }, rounds: { type: 'string' } } });
const events = Number(values.events ?? 50_000);
const rounds = Number(values.rounds ?? 3);
const EVENTS_PER_BATCH = 10;
const STAGED = stagedUsageKeys(USAGE_QUEUE_NAME).list;

const port = await freePort();
const server = startProcess('redis-server', 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
await waitRedis(server, port);
const url = `redis://127.0.0.1:${port}`;
const admin = new Redis(url);
const queue = new Queue(USAGE_QUEUE_NAME, { connection: { url } });
const silent: WorkerLogger = { info: () => {}, warn: () => {}, error: () => {} };

/** An event shaped like what a router emits for the bench's chat-stream requests. */
const benchEvent = (): UsageEvent =>
  usageEvent({
    upstreamProtocol: 'chat-completions',
    provider: 'openai',
    upstreamModel: 'fast-chat',
    stream: true,
    inputTokens: 23,
    outputTokens: 50,
    latencyMs: 1.234,
    timeToFirstTokenMs: 0.871,
    occurredAt: Date.now(),
    costMicros: 45,
  });

try {
  for (let round = 1; round <= rounds; round++) {
    await admin.flushall();
    const staging = admin.pipeline();
    for (let first = 0; first < events; first += EVENTS_PER_BATCH) {
      staging.rpush(STAGED, encodeStagedBatch(Array.from({ length: EVENTS_PER_BATCH }, benchEvent)));
    }
    await staging.exec();
    const started = process.cpuUsage();
    const startedAt = performance.now();
    const worker = startWorker({ redisUrl: url, prices: () => undefined, logger: silent });
    for (;;) {
      const [staged, counts] = await Promise.all([admin.llen(STAGED), queue.getJobCounts('waiting', 'active', 'completed')]);
      if (staged === 0 && (counts.waiting ?? 0) + (counts.active ?? 0) === 0 && (counts.completed ?? 0) > 0) break;
      await sleep(20);
    }
    const cpu = process.cpuUsage(started);
    const wallMs = performance.now() - startedAt;
    await worker.close();
    const jobs = (await queue.getJobCounts('completed')).completed ?? 0;
    console.log(`round ${round}: ${((cpu.user + cpu.system) / events).toFixed(2)} CPU µs an event, ${jobs} jobs, ${wallMs.toFixed(0)} ms`);
  }
} finally {
  await queue.close();
  admin.disconnect();
  await server.stop();
}
