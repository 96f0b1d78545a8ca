import { getFreePort, startRedis, type RedisServer } from '@switchyard/testkit';
import { USAGE_BATCH_JOB_NAME, USAGE_JOB_OPTIONS, USAGE_QUEUE_NAME, type UsageBatch } from '@switchyard/usage-events';
import { Queue, type Job } from 'bullmq';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSwitchyard, type SwitchyardProcess } from './support/start-process.ts';
import { writeConfig } from './support/scratch.ts';

const ADMIN_TOKEN = 'usage-admin-token-0123456789abcdef';
const UPSTREAM_KEY = 'upstream-secret-usage-e2e-0123456789';
const KEYS = { 'key-one': 'sk-sy-usage-e2e-key-one-0123456789abcd', 'key-two': 'sk-sy-usage-e2e-key-two-0123456789abcd' } as const;
type KeyId = keyof typeof KEYS;
/** A second tenant, for the failed-stream probe: its usage stays out of the main run's totals. */
const PROBE_KEY = 'sk-sy-usage-e2e-probe-key-0123456789ab';

/**
 * Every request carries this client-chosen id: the pipeline is idempotent by request id, so a
 * gateway that took it from the client would count 1 request instead of 1,000.
 */
const CLIENT_REQUEST_ID = 'client-chosen-request-id';
const REQUESTS = 1_000;
const CONCURRENCY = 20;
/** After this many answers the worker is SIGKILLed and a new one started. */
const KILL_AFTER = REQUESTS / 2;
/**
 * Bounded wait, from the kill, for the aggregates to catch up. Jobs the killed worker held stay
 * active until BullMQ's stalled-job check (every 30 s, queue-wide, so the new worker's first one
 * is skipped) has seen them twice and their lock (30 s) has expired: about a minute after the
 * new worker starts. This wait is most of the file's run time.
 */
const DRAIN_LIMIT_MS = 75_000;

/** Prices in micros (millionths of a USD) per million tokens, as the config below sets them. */
const PRICES = {
  'priced-chat': { input: 2_000_000, output: 8_000_000, cachedInput: 2_000_000 },
  'priced-messages': { input: 2_000_000, output: 8_000_000, cachedInput: 500_000 },
} as const;
type Model = keyof typeof PRICES;
type ClientFormat = 'chat-completions' | 'messages';

/** One answered request, with the usage its client saw, in canonical terms (input includes cached). */
interface Answered {
  requestId: string;
  format: ClientFormat;
  model: Model;
  keyId: KeyId;
  stream: boolean;
  /** 200, or the 400 of a request the upstream refused on purpose (every 50th). */
  status: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
}

interface Totals {
  requests: number;
  errors: number;
  streamRequests: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costMicros: number;
}

type Row = Totals & { tenantId: string; model?: string; keyId?: string; day?: string; month?: string };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The cost of one request, rounded once per request (libs/usage-events prices.ts). */
function costOf(answer: Answered): number {
  const price = PRICES[answer.model];
  const cached = Math.min(answer.cachedTokens, answer.inputTokens);
  return Math.round(((answer.inputTokens - cached) * price.input + cached * price.cachedInput + answer.outputTokens * price.output) / 1_000_000);
}

function totalsOf(answers: Answered[]): Totals {
  return {
    requests: answers.length,
    errors: answers.filter((answer) => answer.status >= 400).length,
    streamRequests: answers.filter((answer) => answer.stream).length,
    inputTokens: answers.reduce((sum, answer) => sum + answer.inputTokens, 0),
    outputTokens: answers.reduce((sum, answer) => sum + answer.outputTokens, 0),
    cachedTokens: answers.reduce((sum, answer) => sum + answer.cachedTokens, 0),
    costMicros: answers.reduce((sum, answer) => sum + costOf(answer), 0),
  };
}

function pickTotals(row: Row): Totals {
  const { requests, errors, streamRequests, inputTokens, outputTokens, cachedTokens, costMicros } = row;
  return { requests, errors, streamRequests, inputTokens, outputTokens, cachedTokens, costMicros };
}

/**
 * Usage accounting end to end (issue 6): catalog, router, ingress and a usage worker as
 * separate processes on one Redis; 1,000 requests in two client formats, half streamed; the
 * worker SIGKILLed midway and replaced; one event delivered twice. Every answered request is
 * counted exactly once, with the tokens its client saw and the configured price.
 */
describe('usage pipeline: exact counts through a worker crash and a redelivery (split topology)', () => {
  let redis: RedisServer;
  const processes: SwitchyardProcess[] = [];
  let catalog: SwitchyardProcess;
  let ingress: SwitchyardProcess;
  let worker: SwitchyardProcess;
  let queue: Queue;
  const answered: Answered[] = [];
  const failures: string[] = [];
  const startedAt = Date.now();
  let killedWorkerExit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let killedAt = 0;
  /** Jobs the killed worker held: active, with nobody left to finish them. */
  const abandoned: string[] = [];

  beforeAll(async () => {
    const started = <T extends SwitchyardProcess>(process: T): T => {
      processes.push(process);
      return process;
    };
    const simulatorPort = await getFreePort();
    const [redisServer, simulator] = await Promise.all([
      startRedis(),
      startSwitchyard('simulator', { port: simulatorPort, readyPath: '/_sim/stats' }).then(started),
    ]);
    redis = redisServer;
    const config = writeConfig(
      `
providers:
  up-chat: { protocol: chat-completions, baseUrl: ${simulator.url}/v1, apiKey: \${UPSTREAM_KEY} }
  up-messages: { protocol: messages, baseUrl: ${simulator.url}, apiKey: \${UPSTREAM_KEY} }
models:
  - name: priced-chat
    deployments: [{ provider: up-chat, model: sim-chat }]
    prices: { input: 2, output: 8 }
    maxOutputTokens: 256
  - name: priced-messages
    deployments: [{ provider: up-messages, model: sim-messages }]
    prices: { input: 2, output: 8, cachedInput: 0.5 }
    maxOutputTokens: 256
tenants:
  - id: metered
    keys:
      - { id: key-one, key: \${KEY_ONE} }
      - { id: key-two, key: \${KEY_TWO} }
  - id: probe
    keys:
      - { id: probe-key, key: \${PROBE_KEY} }
`,
    );
    const env = { REDIS_URL: redis.url, UPSTREAM_KEY, KEY_ONE: KEYS['key-one'], KEY_TWO: KEYS['key-two'], PROBE_KEY };
    catalog = started(await startSwitchyard('catalog', { port: await getFreePort(), config, env: { ...env, SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN } }));
    // Router, ingress and worker need only the catalog (ingress takes the router's address, not its readiness).
    const [routerPort, ingressPort, workerPort] = [await getFreePort(), await getFreePort(), await getFreePort()];
    [, ingress, worker] = await Promise.all([
      startSwitchyard('router', { port: routerPort, env: { ...env, SWITCHYARD_CATALOG_URL: catalog.url } }).then(started),
      startSwitchyard('ingress', {
        port: ingressPort,
        env: { ...env, SWITCHYARD_CATALOG_URL: catalog.url, SWITCHYARD_ROUTER_URL: `http://127.0.0.1:${routerPort}` },
      }).then(started),
      startSwitchyard('worker', { port: workerPort, env: { REDIS_URL: redis.url } }).then(started),
    ]);
    queue = new Queue(USAGE_QUEUE_NAME, { connection: { url: redis.url } });
  }, 60_000);

  afterAll(async () => {
    await queue?.close();
    await Promise.all(processes.map((process) => process.stop()));
    await redis?.stop();
  });

  const usage = async (query: string): Promise<Row[]> => {
    const range = `from=${utcDay(startedAt - 86_400_000)}&to=${utcDay(Date.now())}`;
    const response = await fetch(`${catalog.url}/admin/v1/usage?tenant=metered&${range}&${query}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`usage query answered ${response.status}: ${body}`);
    return (JSON.parse(body) as { data: Row[] }).data;
  };

  const totalRequests = async () => (await usage('groupBy=model')).reduce((sum, row) => sum + row.requests, 0);

  /** Request `index` of the run: formats, models, keys, streaming and lengths all vary with it. */
  const send = async (index: number): Promise<Answered> => {
    const format: ClientFormat = index % 2 === 0 ? 'chat-completions' : 'messages';
    const model: Model = Math.floor(index / 2) % 2 === 0 ? 'priced-chat' : 'priced-messages';
    // Two in every 50 requests are refused by the upstream (400, not retried): answered errors,
    // counted like any request. They cover all four client/upstream pairs, same format and translated.
    const fails = index % 50 === 24 || index % 50 === 49;
    const stream = !fails && Math.floor(index / 4) % 2 === 0;
    const keyId: KeyId = Math.floor(index / 8) % 2 === 0 ? 'key-one' : 'key-two';
    // Cached input on every 5th request: a cached token of priced-messages costs half a micro,
    // so the cost is only right when rounded per request.
    const knobs = `[[sim:words=${1 + (index % 9)},cached_tokens=${index % 5 === 0 ? 1 + (index % 3) : 0}${fails ? ',fail_status=400' : ''}]]`;
    const text = `Request number ${index} ${'padding '.repeat(index % 13)}${knobs}`;
    const response =
      format === 'chat-completions'
        ? await fetch(`${ingress.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${KEYS[keyId]}`, 'content-type': 'application/json', 'x-request-id': CLIENT_REQUEST_ID },
            body: JSON.stringify({
              model,
              stream,
              ...(stream ? { stream_options: { include_usage: true } } : {}),
              messages: [{ role: 'user', content: text }],
            }),
          })
        : await fetch(`${ingress.url}/v1/messages`, {
            method: 'POST',
            headers: { 'x-api-key': KEYS[keyId], 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'x-request-id': CLIENT_REQUEST_ID },
            body: JSON.stringify({ model, stream, max_tokens: 64, messages: [{ role: 'user', content: text }] }),
          });
    const body = await response.text();
    if (response.status !== (fails ? 400 : 200)) throw new Error(`request ${index} answered ${response.status}: ${body}`);
    const requestId = response.headers.get('x-request-id');
    if (requestId === null) throw new Error(`request ${index} has no x-request-id`);
    if (fails) return { requestId, format, model, keyId, stream, status: 400, inputTokens: 0, outputTokens: 0, cachedTokens: 0 };
    const seen = format === 'chat-completions' ? chatUsage(body, stream) : messagesUsage(body, stream);
    return { requestId, format, model, keyId, stream, status: 200, ...seen };
  };

  /**
   * SIGKILL the worker (no drain) at a moment it holds jobs, so they are abandoned mid-flight,
   * then start a new one. A worker holds a job for a few milliseconds of the time between the
   * moves of staged usage, so the active count is polled back to back (one cheap call, the
   * worker running meanwhile); once it is non-zero the worker is frozen (SIGSTOP) and its
   * active jobs read, so what it holds cannot finish between the look and the kill. Tried for
   * at most 10 s, while the traffic before the last quarter still flows.
   */
  const crashAndReplaceWorker = async () => {
    const exited = once(worker.child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    for (const started = Date.now(); Date.now() - started < 10_000; ) {
      if ((await queue.getActiveCount()) === 0) continue;
      worker.child.kill('SIGSTOP');
      const held = (await queue.getActive()).map((job) => job.id ?? '');
      if (held.length > 0) {
        abandoned.push(...held);
        break;
      }
      worker.child.kill('SIGCONT');
    }
    worker.kill();
    killedAt = Date.now();
    const [code, signal] = await exited;
    killedWorkerExit = { code, signal };
    worker = await startSwitchyard('worker', { port: await getFreePort(), env: { REDIS_URL: redis.url } });
    processes.push(worker);
  };

  it(`should answer ${REQUESTS} requests while the worker is SIGKILLed and replaced midway`, async () => {
    let next = 0;
    let done = 0;
    let crash: Promise<void> | undefined;
    let answeredAfterKill = 0;
    const lane = async () => {
      while (next < REQUESTS) {
        // The last quarter waits for the new worker, so the kill happens midway, traffic flowing.
        if (next >= (REQUESTS * 3) / 4) await crash;
        const index = next++;
        try {
          answered.push(await send(index));
          if (killedAt > 0) answeredAfterKill++;
        } catch (error) {
          failures.push(String(error));
        }
        done++;
        if (done === KILL_AFTER) crash = crashAndReplaceWorker();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));
    await crash;
    expect(killedAt).toBeGreaterThan(0);
    expect(answeredAfterKill).toBeGreaterThanOrEqual(REQUESTS / 4);
    // The kill left jobs in flight: their redelivery to the new worker is part of what is checked below.
    expect(abandoned.length).toBeGreaterThan(0);
    expect(failures).toEqual([]);
    expect(answered).toHaveLength(REQUESTS);
    expect(new Set(answered.map((answer) => answer.requestId)).size).toBe(REQUESTS);
    expect(answered.map((answer) => answer.requestId)).not.toContain(CLIENT_REQUEST_ID);
    expect(killedWorkerExit).toEqual({ code: null, signal: 'SIGKILL' });
    // Both formats, both models, streamed and not, cached tokens: the run covers what it claims.
    for (const format of ['chat-completions', 'messages'] as const) {
      for (const stream of [true, false]) {
        const slice = answered.filter((answer) => answer.format === format && answer.stream === stream && answer.status === 200);
        expect(slice.length).toBeGreaterThan(200);
        expect(slice.every((answer) => answer.inputTokens > 0 && answer.outputTokens > 0)).toBe(true);
        expect(slice.some((answer) => answer.cachedTokens > 0)).toBe(true);
      }
    }
  }, 60_000);

  it('should count a usage batch delivered twice once (a second job of the same requests, and a completed job retried)', async () => {
    // Two batches of the first half's requests, long since counted by the first worker.
    const firstHalf = new Set(answered.slice(0, 100).map((answer) => answer.requestId));
    const counted = (await queue.getJobs(['completed'])).filter(
      (job) => eventsOf(job).some((event) => firstHalf.has(event.requestId as string)) && (job.returnvalue as { counted?: number } | null)?.counted === eventsOf(job).length,
    );
    const [original, another] = counted;
    if (original === undefined || another === undefined) throw new Error('no completed usage jobs of the first requests');
    const [first] = eventsOf(original);
    const answer = answered.find((candidate) => candidate.requestId === first?.requestId);
    expect(first).toMatchObject({ requestId: answer?.requestId, tenantId: 'metered', model: answer?.model, keyId: answer?.keyId });

    // The same payload under another job id: what a router re-sending after the first job was removed sends.
    const duplicate = await queue.add(USAGE_BATCH_JOB_NAME, original.data, { ...USAGE_JOB_OPTIONS, jobId: `duplicate-${original.id ?? ''}` });
    expect((await finishedJob(queue, duplicate.id ?? '')).returnvalue).toEqual({ counted: 0, repeated: eventsOf(original).length });

    // The very same job run again: a redelivery.
    const finishedBefore = another.finishedOn ?? 0;
    await another.retry('completed');
    const again = await finishedJob(queue, another.id ?? '', finishedBefore);
    expect(again.returnvalue).toEqual({ counted: 0, repeated: eventsOf(another).length });
  }, 40_000);

  it('should aggregate exactly the answered requests, their tokens and their cost', async () => {
    // Drained: every answered request counted and the queue idle, so nothing (a stalled job of the
    // killed worker taken over by the new one, say) can still add to the totals.
    const deadline = killedAt + DRAIN_LIMIT_MS;
    let counted = await totalRequests();
    let pending = await pendingJobs(queue);
    while ((counted < answered.length || pending > 0) && Date.now() < deadline) {
      await sleep(250);
      [counted, pending] = await Promise.all([totalRequests(), pendingJobs(queue)]);
    }
    if (pending > 0) {
      const warnings = processes.flatMap((process) => process.output().split('\n').filter((line) => /"level":(40|50)/.test(line)));
      expect.fail(`queue not drained within ${DRAIN_LIMIT_MS} ms: ${await describePending(queue)}\n${warnings.slice(0, 10).join('\n')}`);
    }
    expect(counted).toBe(answered.length);
    // Every answered request's event is in a completed job, under the request id its client saw.
    const queued = await eventsByRequest(queue);
    for (const answer of answered) {
      const { job, event } = queued.get(answer.requestId) ?? {};
      expect(event).toMatchObject({ requestId: answer.requestId, tenantId: 'metered', keyId: answer.keyId, status: answer.status });
      // The model and stream flag of failed requests: see the test below.
      if (answer.status === 200) expect(event).toMatchObject({ model: answer.model, format: answer.format, stream: answer.stream });
      expect(job?.finishedOn).toBeGreaterThan(0);
      expect(job?.failedReason ?? '').toBe('');
    }

    // The jobs the killed worker abandoned were taken over and finished by the new one.
    for (const id of abandoned) {
      const job = await queue.getJob(id);
      expect(job?.stalledCounter).toBeGreaterThanOrEqual(1);
      expect(job?.finishedOn).toBeGreaterThan(killedAt);
    }
    const expected = totalsOf(answered);
    expect(expected.requests).toBe(REQUESTS);
    expect(expected.errors).toBe(REQUESTS / 25);
    const byDay = await usage('groupBy=day');
    const overall = byDay.reduce<Totals>(
      (sum, row) => {
        for (const metric of Object.keys(sum) as Array<keyof Totals>) sum[metric] += row[metric];
        return sum;
      },
      { requests: 0, errors: 0, streamRequests: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0, costMicros: 0 },
    );
    expect(overall).toEqual(expected);
    // Rounded once per request, not once per total: the half-micro cached tokens tell the two apart.
    expect(expected.costMicros).not.toBe(Math.round(answered.reduce((sum, answer) => sum + unroundedCost(answer), 0)));
  }, DRAIN_LIMIT_MS + 10_000);

  it('should group usage by model and by key', async () => {
    const byModel = await usage('groupBy=model');
    expect(byModel.reduce((sum, row) => sum + row.requests, 0)).toBe(REQUESTS);
    for (const model of ['priced-chat', 'priced-messages'] as const) {
      const row = byModel.find((candidate) => candidate.model === model);
      expect(row?.tenantId).toBe('metered');
      // Tokens, cost and streams come from answered requests only, whichever row the errors land in.
      const { inputTokens, outputTokens, cachedTokens, costMicros, streamRequests } = totalsOf(answered.filter((answer) => answer.model === model));
      expect(row).toMatchObject({ inputTokens, outputTokens, cachedTokens, costMicros, streamRequests });
    }
    const byKey = await usage('groupBy=key');
    expect(byKey.map((row) => row.keyId)).toEqual(['key-one', 'key-two']);
    for (const row of byKey) {
      expect(pickTotals(row)).toEqual(totalsOf(answered.filter((answer) => answer.keyId === row.keyId)));
    }
    const byMonth = await usage('groupBy=month');
    expect(byMonth.reduce((sum, row) => sum + row.requests, 0)).toBe(REQUESTS);
    // A tenant without usage has no rows.
    const response = await fetch(`${catalog.url}/admin/v1/usage?tenant=nobody&groupBy=model`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(await response.json()).toEqual({ data: [] });
  });

  it('should count a failed request under the model it asked for, same format or translated', async () => {
    const failed = answered.filter((answer) => answer.status >= 400);
    expect(failed.length).toBe(REQUESTS / 25);
    const queued = await eventsByRequest(queue);
    for (const answer of failed) {
      expect(queued.get(answer.requestId)?.event).toMatchObject({ model: answer.model, format: answer.format, stream: answer.stream, status: answer.status });
    }
    const byModel = await usage('groupBy=model');
    expect(byModel.map((row) => row.model)).toEqual(['priced-chat', 'priced-messages']);
    for (const row of byModel) expect(pickTotals(row)).toEqual(totalsOf(answered.filter((answer) => answer.model === row.model)));
  });

  // Regression: a request that fails before an exchange exists (a translated upstream error,
  // deployments exhausted, a timeout) keeps the model and stream flag it asked for.
  it('should count a failed streamed request as a stream request, translated upstream errors included', async () => {
    const cases = [
      { format: 'chat-completions', model: 'priced-chat' },
      { format: 'chat-completions', model: 'priced-messages' },
      { format: 'messages', model: 'priced-chat' },
      { format: 'messages', model: 'priced-messages' },
    ] as const;
    const requestIds: string[] = [];
    for (const { format, model } of cases) {
      const text = 'Please fail [[sim:fail_status=400]]';
      const response =
        format === 'chat-completions'
          ? await fetch(`${ingress.url}/v1/chat/completions`, {
              method: 'POST',
              headers: { authorization: `Bearer ${PROBE_KEY}`, 'content-type': 'application/json' },
              body: JSON.stringify({ model, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: text }] }),
            })
          : await fetch(`${ingress.url}/v1/messages`, {
              method: 'POST',
              headers: { 'x-api-key': PROBE_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
              body: JSON.stringify({ model, stream: true, max_tokens: 16, messages: [{ role: 'user', content: text }] }),
            });
      await response.text();
      expect(response.status).toBe(400);
      requestIds.push(response.headers.get('x-request-id') ?? '');
    }
    const events = await Promise.all(requestIds.map((id) => finishedEvent(queue, id)));
    expect(events.map((event) => ({ format: event.format, model: event.model, stream: event.stream, status: event.status }))).toEqual(
      cases.map(({ format, model }) => ({ format, model, stream: true, status: 400 })),
    );
    const range = `from=${utcDay(startedAt - 86_400_000)}&to=${utcDay(Date.now())}`;
    const rows = (await (await fetch(`${catalog.url}/admin/v1/usage?tenant=probe&groupBy=key&${range}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as {
      data: Row[];
    };
    expect(rows.data.map((row) => ({ requests: row.requests, errors: row.errors, streamRequests: row.streamRequests }))).toEqual([
      { requests: 4, errors: 4, streamRequests: 4 },
    ]);
  });

  it('should expose the usage queue depth on the worker /metrics', async () => {
    const metrics = await (await fetch(`${worker.url}/metrics`)).text();
    expect(metrics).toMatch(/^# TYPE switchyard_usage_queue_depth gauge$/m);
    expect(metrics).toMatch(/^switchyard_usage_queue_depth \d+$/m);
  });

  it('should never write a key to any output', () => {
    const output = processes.map((process) => process.output()).join('\n');
    for (const secret of [...Object.values(KEYS), PROBE_KEY, UPSTREAM_KEY, ADMIN_TOKEN]) expect(output).not.toContain(secret);
  });
});

/** Jobs not finished yet: waiting, active (a killed worker's until the stalled check takes them back), delayed. */
async function pendingJobs(queue: Queue): Promise<number> {
  const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children');
  return Object.values(counts).reduce((sum, count) => sum + count, 0);
}

/** What is still pending and why, for a failure message. */
async function describePending(queue: Queue): Promise<string> {
  const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed');
  const jobs = await queue.getJobs(['waiting', 'active', 'delayed', 'prioritized'], 0, 20);
  const details = jobs.map((job) => ({
    id: job.id,
    attemptsMade: job.attemptsMade,
    stalledCounter: job.stalledCounter,
    failedReason: job.failedReason,
    processedOn: job.processedOn,
    delay: job.delay,
  }));
  return `${JSON.stringify(counts)} ${JSON.stringify(details)} (now ${Date.now()})`;
}

function unroundedCost(answer: Answered): number {
  const price = PRICES[answer.model];
  const cached = Math.min(answer.cachedTokens, answer.inputTokens);
  return ((answer.inputTokens - cached) * price.input + cached * price.cachedInput + answer.outputTokens * price.output) / 1_000_000;
}

type QueuedEvent = Record<string, unknown>;

/** The events a usage job carries: a batch's, or the one event of a job in the older shape. */
function eventsOf(job: Job): QueuedEvent[] {
  const data = job.data as UsageBatch | QueuedEvent;
  return 'events' in data && Array.isArray(data.events) ? (data.events as unknown as QueuedEvent[]) : [data as QueuedEvent];
}

/** Every usage event on the queue by request id, with the job carrying it. */
async function eventsByRequest(queue: Queue): Promise<Map<string, { job: Job; event: QueuedEvent }>> {
  const byRequest = new Map<string, { job: Job; event: QueuedEvent }>();
  for (const job of await queue.getJobs(['completed', 'failed', 'active', 'waiting', 'delayed', 'prioritized'])) {
    for (const event of eventsOf(job)) byRequest.set(event.requestId as string, { job, event });
  }
  return byRequest;
}

/** Waits (bounded) until the job carrying the request's event has finished, and returns the event. */
async function finishedEvent(queue: Queue, requestId: string): Promise<QueuedEvent> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const found = (await eventsByRequest(queue)).get(requestId);
    if (found?.job.finishedOn !== undefined) {
      if (found.job.failedReason !== undefined && found.job.failedReason !== '') throw new Error(`the job of request ${requestId} failed: ${found.job.failedReason}`);
      return found.event;
    }
    await sleep(100);
  }
  throw new Error(`no finished usage job carries request ${requestId} after 30 s`);
}

/** Waits (bounded) until the job has finished, after `finishedAfter` when given; throws on failure. */
async function finishedJob(queue: Queue, id: string, finishedAfter = 0): Promise<Job> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const job = await queue.getJob(id);
    if (job !== undefined && job.finishedOn !== undefined && job.finishedOn > finishedAfter) {
      if (job.failedReason !== undefined && job.failedReason !== '') throw new Error(`job ${id} failed: ${job.failedReason}`);
      return job;
    }
    await sleep(100);
  }
  throw new Error(`job ${id} did not finish within 30 s`);
}

interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
}

/** Usage as the chat-completions client sees it: prompt_tokens already includes cached tokens. */
function chatUsage(body: string, stream: boolean): Pick<Answered, 'inputTokens' | 'outputTokens' | 'cachedTokens'> {
  let usage: ChatUsage | undefined;
  if (!stream) usage = (JSON.parse(body) as { usage: ChatUsage }).usage;
  else {
    for (const data of sseData(body)) {
      if (data === '[DONE]') continue;
      const chunk = JSON.parse(data) as { usage?: ChatUsage | null };
      if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage;
    }
  }
  if (usage === undefined) throw new Error(`no usage in chat answer: ${body.slice(0, 500)}`);
  return { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens, cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0 };
}

interface MessagesUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/**
 * Usage as the messages client sees it, in canonical terms: input_tokens excludes cache reads
 * and writes, so the canonical input adds them. A stream reports input in message_start and the
 * final counts in message_delta (cumulative; fields present there win).
 */
function messagesUsage(body: string, stream: boolean): Pick<Answered, 'inputTokens' | 'outputTokens' | 'cachedTokens'> {
  let usage: MessagesUsage = {};
  if (!stream) usage = (JSON.parse(body) as { usage: MessagesUsage }).usage;
  else {
    for (const data of sseData(body)) {
      const event = JSON.parse(data) as { type: string; message?: { usage?: MessagesUsage }; usage?: MessagesUsage };
      if (event.type === 'message_start') usage = { ...event.message?.usage };
      if (event.type === 'message_delta') usage = { ...usage, ...dropNulls(event.usage ?? {}) };
    }
  }
  if (usage.input_tokens === undefined || usage.output_tokens === undefined) throw new Error(`no usage in messages answer: ${body.slice(0, 500)}`);
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  return { inputTokens: usage.input_tokens + cacheRead + cacheWrite, outputTokens: usage.output_tokens, cachedTokens: cacheRead };
}

function dropNulls(usage: MessagesUsage): MessagesUsage {
  return Object.fromEntries(Object.entries(usage).filter(([, value]) => value !== null && value !== undefined)) as MessagesUsage;
}

function sseData(body: string): string[] {
  return body
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim());
}
