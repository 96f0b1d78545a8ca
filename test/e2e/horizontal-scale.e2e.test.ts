import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { getFreePort, startRedis, type RedisServer } from '@switchyard/testkit';
import { requestMarkerKey } from '@switchyard/usage-events';
import { Redis } from 'ioredis';
import { connect } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectRequestIds, installRequestIdRecorder } from './support/request-ids.ts';
import { startSwitchyard, type SwitchyardProcess } from './support/start-process.ts';
import { startTcpBalancer, type TcpBalancer } from './support/tcp-balancer.ts';
import { writeConfig } from './support/scratch.ts';

/**
 * Horizontal scale on loopback (issue 7.5): Redis, the simulator, a catalog, a usage worker,
 * two routers and two ingresses behind a round-robin TCP balancer. A bounded mixed load over
 * the four formats (official SDKs, half streaming) runs while one router and one ingress are
 * stopped: drained with SIGTERM in one scenario, SIGKILLed in the other (a fresh cluster each).
 */

const BIG_KEY = 'sk-sy-scale-big-tenant-key-0123456789ab';
const SMALL_KEY = 'sk-sy-scale-small-tenant-key-012345678';
const ADMIN_TOKEN = 'scale-admin-token-0123456789';
const UPSTREAM_KEY = 'scale-upstream-secret-key';
/** Known in advance and far above what the load below sends in a minute. */
const BIG_RPM = 100_000;
const SMALL_RPM = 6;
const TOTAL = 300;
const CONCURRENCY = 20;
/** The disruption happens when this request starts (about 40 % into the load). */
const DISRUPT_AT = 120;
/** Requests sent after the load, once the disruption is over. */
const AFTER = 24;
const GRACE_MS = 10_000;
const INGRESSES = 2;
/** SIGKILL scenario: the killed router's Redis stalls this long before the kill. */
const STALL_MS = 600;

const FORMATS = ['chat-completions', 'responses', 'messages', 'generate-content'] as const;
type Format = (typeof FORMATS)[number];
const MODELS = ['m-chat', 'm-responses', 'm-messages', 'm-gemini'] as const;

/** What the client saw of one request. */
interface Outcome {
  index: number;
  tenant: 'big' | 'small';
  format: Format;
  model: string;
  stream: boolean;
  startedAt: number;
  /** Streams: when the first event arrived (the answer was under way on the server). */
  firstEventAt?: number;
  endedAt: number;
  /** Answered 200 and read to its end (the format's completion marker seen), no client-side error. */
  ok: boolean;
  /** HTTP status of an error answer, if the SDK saw one. */
  status?: number;
  /** The error the SDK threw (class and message), if any. */
  error?: string;
  /** The gateway's `x-request-id` of the answer, when an answer (even an error) arrived. */
  requestId?: string;
}

interface Cluster {
  redis: RedisServer;
  simulator: SwitchyardProcess;
  catalog: SwitchyardProcess;
  worker: SwitchyardProcess;
  routers: SwitchyardProcess[];
  ingresses: SwitchyardProcess[];
  balancer: TcpBalancer;
  /** Each router reaches Redis through its own proxy, so a stall can be injected for one router. */
  routerRedis: TcpBalancer[];
  stop(): Promise<void>;
}

function configText(simulatorUrl: string): string {
  return `
providers:
  up-chat: { protocol: chat-completions, baseUrl: ${simulatorUrl}/v1, apiKey: \${UPSTREAM_KEY} }
  up-responses: { protocol: responses, baseUrl: ${simulatorUrl}/v1, apiKey: \${UPSTREAM_KEY} }
  up-messages: { protocol: messages, baseUrl: ${simulatorUrl}, apiKey: \${UPSTREAM_KEY} }
  up-gemini: { protocol: generate-content, baseUrl: ${simulatorUrl}, apiKey: \${UPSTREAM_KEY} }
models:
  - { name: m-chat, deployments: [{ provider: up-chat, model: sim-chat }], maxOutputTokens: 256 }
  - { name: m-responses, deployments: [{ provider: up-responses, model: sim-responses }], maxOutputTokens: 256 }
  - { name: m-messages, deployments: [{ provider: up-messages, model: sim-messages }], maxOutputTokens: 256 }
  - { name: m-gemini, deployments: [{ provider: up-gemini, model: sim-gemini }], maxOutputTokens: 256 }
tenants:
  - { id: big, limits: { rpm: ${BIG_RPM} }, keys: [{ id: big-key, key: ${BIG_KEY} }] }
  - { id: small, limits: { rpm: ${SMALL_RPM} }, keys: [{ id: small-key, key: ${SMALL_KEY} }] }
`;
}

async function startCluster(): Promise<Cluster> {
  const started: SwitchyardProcess[] = [];
  const [redis, simulator] = await Promise.all([
    startRedis(),
    getFreePort().then((port) => startSwitchyard('simulator', { port, readyPath: '/_sim/stats' })),
  ]);
  started.push(simulator);
  let balancer: TcpBalancer | undefined;
  const routerRedis: TcpBalancer[] = [];
  const stop = async () => {
    await balancer?.close();
    for (const proxy of routerRedis) proxy.resume();
    await Promise.all(started.filter((process) => process !== simulator).map((process) => stopBounded(process)));
    await stopBounded(simulator);
    await Promise.all(routerRedis.map((proxy) => proxy.close()));
    await redis.stop();
  };
  try {
    const config = writeConfig(configText(simulator.url));
    const env = { REDIS_URL: redis.url, SWITCHYARD_SHUTDOWN_GRACE_MS: String(GRACE_MS), LOG_LEVEL: 'warn' };
    const catalog = await startSwitchyard('catalog', {
      port: await getFreePort(),
      config,
      env: { ...env, UPSTREAM_KEY, SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN },
    });
    started.push(catalog);
    const internal = { ...env, SWITCHYARD_CATALOG_URL: catalog.url };
    const redisPort = Number(new URL(redis.url).port);
    for (let index = 0; index < 2; index++) routerRedis.push(await startTcpBalancer([{ host: '127.0.0.1', port: redisPort }]));
    const [worker, ...routers] = await Promise.all([
      getFreePort().then((port) => startSwitchyard('worker', { port, env })),
      ...routerRedis.map(async (proxy) =>
        startSwitchyard('router', { port: await getFreePort(), env: { ...internal, REDIS_URL: `redis://127.0.0.1:${proxy.port}` } }),
      ),
    ]);
    started.push(worker as SwitchyardProcess, ...routers);
    const routerUrls = routers.map((router) => router.url).join(',');
    const ingresses = await Promise.all(
      Array.from({ length: INGRESSES }, async () => startSwitchyard('ingress', { port: await getFreePort(), env: { ...internal, SWITCHYARD_ROUTER_URL: routerUrls } })),
    );
    started.push(...ingresses);
    balancer = await startTcpBalancer(ingresses.map((ingress) => ({ host: '127.0.0.1', port: ingress.port })));
    return { redis, simulator, catalog, worker: worker as SwitchyardProcess, routers, ingresses, balancer, routerRedis, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** SIGTERM and wait, but never longer than the grace period and a margin; SIGKILL then. */
async function stopBounded(process: SwitchyardProcess): Promise<void> {
  if (process.child.exitCode !== null || process.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => process.child.once('exit', () => resolve()));
  process.child.kill('SIGTERM');
  const timer = setTimeout(() => process.kill(), GRACE_MS + 3_000);
  await exited;
  clearTimeout(timer);
}

/** Resolves the exit code and signal once the process has exited. */
function exitOf(process: SwitchyardProcess): Promise<{ code: number | null; signal: string | null; at: number }> {
  if (process.child.exitCode !== null || process.child.signalCode !== null) {
    return Promise.resolve({ code: process.child.exitCode, signal: process.child.signalCode, at: performance.now() });
  }
  return new Promise((resolve) => process.child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })));
}

/** One SDK client per format, all through the balancer; no SDK retries, so one call is one request. */
function clientsFor(url: string, key: string) {
  return {
    openai: new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0, timeout: 30_000 }),
    anthropic: new Anthropic({ baseURL: url, apiKey: key, maxRetries: 0, timeout: 30_000 }),
    genai: new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: url, timeout: 30_000, retryOptions: { attempts: 1 } } }),
  };
}
type Clients = ReturnType<typeof clientsFor>;

/** Sends one request in `format` and reads it to the end; true when the format's completion marker was seen. */
async function call(clients: Clients, format: Format, model: string, stream: boolean, text: string, onEvent: () => void): Promise<boolean> {
  const { openai, anthropic, genai } = clients;
  switch (format) {
    case 'chat-completions': {
      const messages = [{ role: 'user' as const, content: text }];
      if (!stream) return (await openai.chat.completions.create({ model, messages })).choices[0]?.finish_reason != null;
      let finished = false;
      for await (const chunk of await openai.chat.completions.create({ model, messages, stream: true, stream_options: { include_usage: true } })) {
        onEvent();
        if (chunk.choices[0]?.finish_reason != null) finished = true;
      }
      return finished;
    }
    case 'responses': {
      if (!stream) return (await openai.responses.create({ model, input: text })).status === 'completed';
      let completed = false;
      for await (const event of await openai.responses.create({ model, input: text, stream: true })) {
        onEvent();
        if (event.type === 'response.completed') completed = true;
        if (event.type === 'error' || event.type === 'response.failed') throw new Error(`responses stream: ${event.type}`);
      }
      return completed;
    }
    case 'messages': {
      const body = { model, max_tokens: 256, messages: [{ role: 'user' as const, content: text }] };
      if (!stream) return (await anthropic.messages.create(body)).stop_reason !== null;
      let stopped = false;
      for await (const event of await anthropic.messages.create({ ...body, stream: true })) {
        onEvent();
        if (event.type === 'message_stop') stopped = true;
      }
      return stopped;
    }
    case 'generate-content': {
      if (!stream) return (await genai.models.generateContent({ model, contents: text })).candidates?.[0]?.finishReason !== undefined;
      let finished = false;
      for await (const chunk of await genai.models.generateContentStream({ model, contents: text })) {
        onEvent();
        if (chunk.candidates?.[0]?.finishReason !== undefined) finished = true;
      }
      return finished;
    }
  }
}

function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, code } = error as { status?: unknown; code?: unknown };
  if (typeof status === 'number') return status;
  if (typeof code === 'number') return code;
  return undefined;
}

/** Streams last ~0.5 s, non-streamed answers ~60 ms: enough overlap for requests to be in flight at the disruption. */
function promptFor(index: number, stream: boolean): string {
  return stream ? `scale request ${index} [[sim:chunk_delay_ms=25,words=16]]` : `scale request ${index} [[sim:latency_ms=60,words=8]]`;
}

/** Request `index` of the load: formats × models × stream, every 15th one from the small-rpm tenant. */
function planOf(index: number): Pick<Outcome, 'tenant' | 'format' | 'model' | 'stream'> {
  return {
    tenant: index % 15 === 7 ? 'small' : 'big',
    format: FORMATS[index % 4] as Format,
    model: MODELS[(index >> 3) % 4] as string,
    stream: ((index >> 2) & 1) === 1,
  };
}

// The SDK clients below must see the recording fetch (they capture fetch when constructed).
installRequestIdRecorder();

async function send(clients: Record<'big' | 'small', Clients>, index: number): Promise<Outcome> {
  const plan = planOf(index);
  const startedAt = performance.now();
  let firstEventAt: number | undefined;
  // No SDK retries: one call is one HTTP request, so at most one id.
  const ids: string[] = [];
  const requestId = () => (ids.length === 1 ? { requestId: ids[0] as string } : {});
  try {
    const ok = await collectRequestIds(ids, () =>
      call(clients[plan.tenant], plan.format, plan.model, plan.stream, promptFor(index, plan.stream), () => (firstEventAt ??= performance.now())),
    );
    return {
      index,
      ...plan,
      startedAt,
      endedAt: performance.now(),
      ok,
      ...requestId(),
      ...(firstEventAt === undefined ? {} : { firstEventAt }),
      ...(ok ? {} : { error: 'answer ended without its completion marker' }),
    };
  } catch (error) {
    const status = statusOf(error);
    return {
      index,
      ...plan,
      startedAt,
      endedAt: performance.now(),
      ok: false,
      ...requestId(),
      ...(firstEventAt === undefined ? {} : { firstEventAt }),
      ...(status === undefined ? {} : { status }),
      error: `${(error as Error).constructor.name}: ${(error as Error).message}`.slice(0, 300),
    };
  }
}

/** Runs `total` requests, `concurrency` at a time; `disrupt` is started (not awaited) when request `at` starts. */
async function runLoad(
  clients: Record<'big' | 'small', Clients>,
  options: { total: number; concurrency: number; at: number; disrupt: () => Promise<void>; first?: number },
): Promise<{ outcomes: Outcome[]; disruption: Promise<void> }> {
  const first = options.first ?? 0;
  const outcomes: Outcome[] = [];
  let next = first;
  let disruption: Promise<void> = Promise.resolve();
  const lane = async () => {
    while (next < first + options.total) {
      const index = next++;
      if (index === options.at) disruption = options.disrupt();
      outcomes.push(await send(clients, index));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, lane));
  return { outcomes, disruption };
}

function gauge(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(name)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

interface UsageRow {
  model?: string;
  requests: number;
  errors: number;
}

async function usageByModel(catalog: SwitchyardProcess, tenant: string): Promise<Map<string, UsageRow>> {
  const now = Date.now();
  const response = await fetch(
    `${catalog.url}/admin/v1/usage?tenant=${tenant}&groupBy=model&from=${utcDay(now - 86_400_000)}&to=${utcDay(now + 86_400_000)}`,
    { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
  );
  expect(response.status).toBe(200);
  const rows = ((await response.json()) as { data: UsageRow[] }).data;
  return new Map(rows.map((row) => [row.model ?? '', row]));
}

/** Polls the usage of both tenants until two reads 1 s apart agree (the worker drained the queue); at most 20 s. */
async function settledUsage(catalog: SwitchyardProcess): Promise<Record<'big' | 'small', Map<string, UsageRow>>> {
  const read = async () => ({ big: await usageByModel(catalog, 'big'), small: await usageByModel(catalog, 'small') });
  const key = (usage: Record<'big' | 'small', Map<string, UsageRow>>) => JSON.stringify([[...usage.big], [...usage.small]]);
  let previous = await read();
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const current = await read();
    if (key(current) === key(previous)) return current;
    previous = current;
  }
  return previous;
}

function describeOutcomes(outcomes: Outcome[]): string {
  const counts = new Map<string, number>();
  for (const outcome of outcomes) {
    const label = outcome.ok ? 'ok' : `${outcome.status ?? '-'} ${outcome.error?.replace(/req_[0-9a-f]+/g, 'req_…').slice(0, 120)}`;
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return [...counts].map(([label, count]) => `${count} × ${label}`).join('\n');
}


/** A long chat stream sent straight to one ingress (not through the balancer), read to its end. */
interface Pinned {
  ingress: number;
  /** The router the ingress forwarded it to: its round-robin starts at router 0 and nothing else reached it before. */
  router: number;
  status: number;
  requestId: string | null;
  body: string;
  /** The error reading the body raised (the connection was cut), if any. */
  readError?: string;
}

const PINNED_PER_INGRESS = 4;

/** Opens `PINNED_PER_INGRESS` streams on each ingress, one after the other (each waits for its headers), before any other traffic. */
async function openPinnedStreams(cluster: Cluster): Promise<Array<Promise<Pinned>>> {
  const done: Array<Promise<Pinned>> = [];
  for (const [ingressIndex, ingress] of cluster.ingresses.entries()) {
    for (let ordinal = 0; ordinal < PINNED_PER_INGRESS; ordinal++) {
      const response = await fetch(`${ingress.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BIG_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'm-chat',
          stream: true,
          messages: [{ role: 'user', content: `pinned ${ingressIndex}-${ordinal} [[sim:chunk_delay_ms=200,words=40]]` }],
        }),
      });
      const pinned: Pinned = { ingress: ingressIndex, router: ordinal % cluster.routers.length, status: response.status, requestId: response.headers.get('x-request-id'), body: '' };
      done.push(
        (async () => {
          const decoder = new TextDecoder();
          try {
            for await (const chunk of response.body ?? []) pinned.body += decoder.decode(chunk as Uint8Array, { stream: true });
          } catch (error) {
            pinned.readError = String((error as Error).cause ?? error);
          }
          return pinned;
        })(),
      );
    }
  }
  return done;
}

const completedStream = (pinned: Pinned) => pinned.readError === undefined && pinned.body.trimEnd().endsWith('data: [DONE]') && !pinned.body.includes('data: {"error"');
const errorEventStream = (pinned: Pinned) => pinned.readError === undefined && /data: \{"error":\{"message":/.test(pinned.body);

function pinnedOutcome(pinned: Pinned, index: number): Outcome {
  const ok = pinned.status === 200 && completedStream(pinned);
  return {
    index,
    tenant: 'big',
    format: 'chat-completions',
    model: 'm-chat',
    stream: true,
    startedAt: 0,
    endedAt: 0,
    ok,
    ...(pinned.requestId === null ? {} : { requestId: pinned.requestId }),
    ...(ok ? {} : { status: pinned.status, error: pinned.readError ?? 'stream did not complete' }),
  };
}

/** The drain probe's two requests as outcomes (SIGTERM scenario; none otherwise). */
function drainProbeOutcomes(result: ScenarioResult): Outcome[] {
  if (!result.drainProbeSent) return [];
  return [0, 1].map((position) => {
    const response = result.drainProbe[position];
    const ok = response !== undefined && response.status === 200 && response.complete && !response.body.includes('"error"');
    return {
      index: -100 - position,
      tenant: 'big',
      format: 'chat-completions',
      model: 'm-chat',
      stream: position === 0,
      startedAt: 0,
      endedAt: 0,
      ok,
      ...(response?.headers['x-request-id'] === undefined ? {} : { requestId: response.headers['x-request-id'] }),
      ...(ok ? {} : { status: response?.status ?? 0, error: 'drain probe' }),
    } satisfies Outcome;
  });
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body ended as its framing said (chunked terminator, or content-length bytes). */
  complete: boolean;
}

/** Splits the bytes of a connection into its HTTP/1.1 responses (chunked or content-length bodies). */
function parseResponses(bytes: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let position = 0;
  while (position < bytes.length) {
    const headEnd = bytes.indexOf('\r\n\r\n', position);
    if (headEnd < 0) break;
    const [statusLine = '', ...lines] = bytes.subarray(position, headEnd).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    position = headEnd + 4;
    const parts: Buffer[] = [];
    let complete = false;
    if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const lineEnd = bytes.indexOf('\r\n', position);
        if (lineEnd < 0) break;
        const size = Number.parseInt(bytes.subarray(position, lineEnd).toString('latin1'), 16);
        if (!Number.isFinite(size)) break;
        if (size === 0) {
          position = lineEnd + 4;
          complete = true;
          break;
        }
        parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
        position = lineEnd + 2 + size + 2;
      }
    } else {
      const length = Number(headers['content-length'] ?? bytes.length - position);
      parts.push(bytes.subarray(position, position + length));
      complete = position + length <= bytes.length;
      position += length;
    }
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, body: Buffer.concat(parts).toString('utf8'), complete });
  }
  return responses;
}

function rawChatRequest(port: number, body: unknown): string {
  const text = JSON.stringify(body);
  return (
    `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${BIG_KEY}\r\n` +
    `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: keep-alive\r\n\r\n${text}`
  );
}

/**
 * One keep-alive connection to `port`: a 2 s stream, then — once `signal()` ran, while the
 * stream is still going — a second request on the same connection. This is what a client
 * with a kept-alive connection does when its next request races the server's drain; a
 * connection busy with a stream cannot be closed as idle, so the timing is deterministic.
 */
async function requestDuringDrain(port: number, signal: () => void): Promise<RawResponse[]> {
  const socket = connect({ host: '127.0.0.1', port });
  const chunks: Buffer[] = [];
  const closed = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
  });
  const firstBytes = new Promise<void>((resolve) => socket.once('data', () => resolve()));
  socket.write(
    rawChatRequest(port, { model: 'm-chat', stream: true, messages: [{ role: 'user', content: 'drain probe [[sim:chunk_delay_ms=100,words=20]]' }] }),
  );
  await firstBytes;
  signal();
  await new Promise((resolve) => setTimeout(resolve, 400));
  socket.write(rawChatRequest(port, { model: 'm-chat', messages: [{ role: 'user', content: 'second request [[sim:words=3]]' }] }));
  const timer = setTimeout(() => socket.destroy(), 15_000);
  await closed;
  clearTimeout(timer);
  return parseResponses(Buffer.concat(chunks));
}

interface ScenarioResult {
  outcomes: Outcome[];
  after: Outcome[];
  signalAt: number;
  /** When routerInflightAtSignal and ingressOpenAtSignal were read, just before the signal. */
  sampledAt: number;
  routerInflightAtSignal: number;
  ingressOpenAtSignal: number;
  victimExits: Array<{ code: number | null; signal: string | null; at: number }>;
  usage: Record<'big' | 'small', Map<string, UsageRow>>;
  /** Request ids the worker marked as counted, per tenant (its idempotency markers in Redis). */
  counted: Record<'big' | 'small', string[]>;
  survivorsAlive: boolean;
  pinned: Pinned[];
  /** SIGTERM only: the two answers on a connection whose second request reached the draining ingress. */
  drainProbe: RawResponse[];
  drainProbeSent: boolean;
  /** SIGKILL only: when the victim router's Redis stalled, before the kill. */
  stallAt?: number;
  /** Log lines of ingresses whose rate-limit store was unreachable (the onStoreFailure policy took over). */
  limiterDegraded: string[];
}

/** Starts a cluster, runs the load with `signal` sent to router `victim` and ingress `victim` midway, then reads usage. */
async function runScenario(cluster: Cluster, signal: 'SIGTERM' | 'SIGKILL', victim: number, options: { stallRedisMs?: number } = {}): Promise<ScenarioResult> {
  const clients = { big: clientsFor(cluster.balancer.url, BIG_KEY), small: clientsFor(cluster.balancer.url, SMALL_KEY) };
  const router = cluster.routers[victim] as SwitchyardProcess;
  const ingress = cluster.ingresses[victim] as SwitchyardProcess;
  const exits = [exitOf(router), exitOf(ingress)];
  let signalAt = 0;
  let routerInflightAtSignal = 0;
  let ingressOpenAtSignal = 0;
  let drainProbe: Promise<RawResponse[]> = Promise.resolve([]);
  let stallAt: number | undefined;
  // Long streams on every ingress and router, started before the load: in flight at the signal.
  const pinnedStreams = await openPinnedStreams(cluster);
  let sampledAt = 0;
  // What the victims hold, read as close to the signal as the read allows: requests that start
  // between this and the signal are counted from the outcomes (ScenarioResult.sampledAt).
  const sample = async () => {
    sampledAt = performance.now();
    routerInflightAtSignal = gauge(await (await fetch(`${router.url}/metrics`)).text(), 'switchyard_inflight_requests{target="router"}');
    ingressOpenAtSignal = cluster.balancer.stats().open[victim] ?? 0;
  };
  const disrupt = async () => {
    const send = () => {
      signalAt = performance.now();
      router.child.kill(signal);
      ingress.child.kill(signal);
    };
    if (signal === 'SIGTERM') {
      await sample();
      let sent: () => void = () => {};
      const signalled = new Promise<void>((resolve) => (sent = resolve));
      drainProbe = requestDuringDrain(ingress.port, () => {
        send();
        sent();
      });
      await signalled;
    } else {
      if (options.stallRedisMs !== undefined) {
        // The victim router's Redis stalls just before it dies: what it answered meanwhile has
        // its usage events still in the router's buffer (as any answer does for a few ms).
        stallAt = performance.now();
        cluster.routerRedis[victim]?.pause();
        await new Promise((resolve) => setTimeout(resolve, options.stallRedisMs));
      }
      await sample();
      send();
    }
  };
  const { outcomes, disruption } = await runLoad(clients, { total: TOTAL, concurrency: CONCURRENCY, at: DISRUPT_AT, disrupt });
  await disruption;
  const victimExits = await Promise.all(exits);
  const pinned = await Promise.all(pinnedStreams);
  const probe = await drainProbe;
  // After the disruption: a short batch through the survivors.
  const { outcomes: after } = await runLoad(clients, { total: AFTER, concurrency: 4, at: -1, disrupt: async () => {}, first: TOTAL });
  const usage = await settledUsage(cluster.catalog);
  const counted = { big: await countedRequestIds(cluster.redis, 'big'), small: await countedRequestIds(cluster.redis, 'small') };
  const survivors = [cluster.catalog, cluster.worker, ...cluster.routers, ...cluster.ingresses].filter((process) => process !== router && process !== ingress);
  return {
    outcomes,
    after,
    signalAt,
    sampledAt,
    routerInflightAtSignal,
    ingressOpenAtSignal,
    victimExits,
    usage,
    counted,
    survivorsAlive: survivors.every((process) => process.child.exitCode === null && process.child.signalCode === null),
    pinned,
    drainProbe: probe,
    drainProbeSent: signal === 'SIGTERM',
    ...(stallAt === undefined ? {} : { stallAt }),
    limiterDegraded: cluster.ingresses.flatMap((process) =>
      process
        .output()
        .split('\n')
        .filter((line) => line.includes('rate-limit store unreachable')),
    ),
  };
}

/**
 * The ids of the requests the worker counted for `tenant`: the worker records a request only
 * together with its idempotency marker (one Lua script; docs/operations.md "Redis").
 */
async function countedRequestIds(redis: RedisServer, tenant: string): Promise<string[]> {
  const client = new Redis(redis.url);
  try {
    const prefix = requestMarkerKey(tenant, '');
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    return keys.map((key) => decodeURIComponent(key.slice(prefix.length)));
  } finally {
    client.disconnect();
  }
}

/** Every request the clients sent in a scenario: the load, the batch after it, the pinned streams and the drain probe. */
function allOutcomes(result: ScenarioResult): Outcome[] {
  return [...result.outcomes, ...result.after, ...result.pinned.map((stream, index) => pinnedOutcome(stream, -1 - index)), ...drainProbeOutcomes(result)];
}

/** Usage per tenant and model, beside what the clients saw: answered (ok) and unknown (an error that may have reached a router). */
function usageComparison(result: ScenarioResult): Array<{ tenant: string; model: string; answered: number; unknown: number; requests: number; successes: number }> {
  const { usage } = result;
  const all = allOutcomes(result);
  return (['big', 'small'] as const).flatMap((tenant) =>
    MODELS.map((model) => {
      const mine = all.filter((outcome) => outcome.tenant === tenant && outcome.model === model);
      const row = usage[tenant].get(model) ?? { requests: 0, errors: 0 };
      return {
        tenant,
        model,
        answered: mine.filter((outcome) => outcome.ok).length,
        // Errors the client saw may or may not have reached a router (429s never do).
        unknown: mine.filter((outcome) => !outcome.ok && outcome.status !== 429).length,
        requests: row.requests,
        successes: row.requests - row.errors,
      };
    }),
  );
}

/** Checks shared by both scenarios. */
function commonChecks(result: () => ScenarioResult) {
  // Per request, not per total: a lost record and a double count of another request would
  // cancel out in a sum.
  it('should count every answered request exactly once, by its x-request-id', () => {
    for (const tenant of ['big', 'small'] as const) {
      const mine = allOutcomes(result()).filter((outcome) => outcome.tenant === tenant);
      const answered = mine.filter((outcome) => outcome.ok);
      expect(answered.length, tenant).toBeGreaterThan(tenant === 'big' ? TOTAL / 2 : 0);
      expect(answered.filter((outcome) => outcome.requestId === undefined).map((outcome) => outcome.index), `${tenant}: answers without an x-request-id`).toEqual([]);
      const answeredIds = new Set(answered.map((outcome) => outcome.requestId as string));
      expect(answeredIds.size, `${tenant}: request ids are unique`).toBe(answered.length);

      const marked = result().counted[tenant];
      const markedIds = new Set(marked);
      expect(markedIds.size).toBe(marked.length);
      expect([...answeredIds].filter((id) => !markedIds.has(id)), `${tenant}: answered but never counted`).toEqual([]);
      // The aggregates count each marked request once: no request counted twice, none without its marker.
      const requests = [...result().usage[tenant].values()].reduce((sum, row) => sum + row.requests, 0);
      expect(requests, `${tenant}: usage requests = counted request ids`).toBe(markedIds.size);

      // Counted but not answered: only requests whose client saw an error after the router took
      // them (a cut stream: its id is known), or lost the connection before any header (no id).
      const failedIds = new Set(mine.flatMap((outcome) => (!outcome.ok && outcome.requestId !== undefined ? [outcome.requestId] : [])));
      const unexplained = [...markedIds].filter((id) => !answeredIds.has(id) && !failedIds.has(id));
      const failedWithoutId = mine.filter((outcome) => !outcome.ok && outcome.requestId === undefined && outcome.status !== 429).length;
      expect(unexplained.length, `${tenant}: counted ids no client request explains`).toBeLessThanOrEqual(failedWithoutId);
      if (mine.every((outcome) => outcome.ok || outcome.status === 429)) expect(markedIds.size, `${tenant}: counted = answered`).toBe(answeredIds.size);
    }
  });

  it('should answer every request that ended before the disruption, with no 429 for the big tenant', () => {
    const { outcomes, signalAt } = result();
    expect(outcomes).toHaveLength(TOTAL);
    const before = outcomes.filter((outcome) => outcome.tenant === 'big' && outcome.endedAt < signalAt);
    expect(before.length).toBeGreaterThan(DISRUPT_AT / 2);
    expect(before.filter((outcome) => !outcome.ok), describeOutcomes(before)).toEqual([]);
    expect(outcomes.filter((outcome) => outcome.tenant === 'big' && outcome.status === 429)).toEqual([]);
  });

  it('should never admit the small-rpm tenant beyond its limit', () => {
    const { outcomes, after, usage } = result();
    const small = [...outcomes, ...after].filter((outcome) => outcome.tenant === 'small');
    expect(small.length).toBeGreaterThan(2 * SMALL_RPM);
    const windowMs = Math.max(...small.map((outcome) => outcome.endedAt)) - Math.min(...small.map((outcome) => outcome.startedAt));
    // A strict sliding window: at most the limit in any 60 s, so a run of w ms admits at most
    // limit × ⌈w / 60 s⌉ (docs/limits.md).
    const exact = SMALL_RPM * Math.max(1, Math.ceil(windowMs / 60_000));
    // If an ingress's Redis call timed out (250 ms, e.g. a starved event loop), the documented
    // `open` policy counts per process until Redis answers: then each ingress has its own window.
    const { limiterDegraded } = result();
    const bound = limiterDegraded.length === 0 ? exact : exact * INGRESSES;
    if (limiterDegraded.length > 0) console.warn(`rate-limit store degraded during the load; per-ingress bound ${bound} applies`);
    const why = `bound ${bound}; limiter degraded: ${limiterDegraded.length === 0 ? 'never' : limiterDegraded.slice(0, 3).join('\n')}`;
    expect(small.filter((outcome) => outcome.ok).length, why).toBeLessThanOrEqual(bound);
    expect(small.filter((outcome) => outcome.status === 429).length).toBeGreaterThan(0);
    const counted = [...usage.small.values()].reduce((sum, row) => sum + row.requests, 0);
    expect(counted, why).toBeLessThanOrEqual(bound);
  });

  it('should never hand a client a truncated answer as a success: every failure is an error the SDK raised', () => {
    const { outcomes, after } = result();
    const truncated = [...outcomes, ...after].filter((outcome) => !outcome.ok && outcome.error === 'answer ended without its completion marker');
    expect(truncated).toEqual([]);
  });

  it('should keep every other process running', () => {
    expect(result().survivorsAlive).toBe(true);
  });
}

describe('horizontal scale: SIGTERM drains one router and one ingress under load', () => {
  let cluster: Cluster;
  let result: ScenarioResult;

  beforeAll(async () => {
    cluster = await startCluster();
    result = await runScenario(cluster, 'SIGTERM', 0);
  }, 110_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 40_000);

  commonChecks(() => result);

  it('should have a usage record for every answered request, those of the drained router included', () => {
    for (const row of usageComparison(result)) {
      expect(row.successes, `${row.tenant}/${row.model}: usage successes ≥ answered (${row.answered})`).toBeGreaterThanOrEqual(row.answered);
    }
  });

  it('should finish every stream in flight on the drained router and ingress, and exit 0 within the grace period', () => {
    const { pinned, outcomes, signalAt, routerInflightAtSignal, victimExits } = result;
    expect(routerInflightAtSignal).toBeGreaterThan(0);
    // Pinned streams: on the drained ingress (to both routers), and on the survivor to the drained router.
    expect(pinned.filter((stream) => stream.ingress === 0 || stream.router === 0).length).toBeGreaterThanOrEqual(PINNED_PER_INGRESS + 2);
    for (const stream of pinned) {
      expect({ ingress: stream.ingress, router: stream.router, status: stream.status, completed: completedStream(stream), readError: stream.readError }).toEqual({
        ingress: stream.ingress,
        router: stream.router,
        status: 200,
        completed: true,
        readError: undefined,
      });
    }
    // Load streams already streaming when the signal came (a request merely started by the SDK
    // may still be unsent: that is the kept-alive connection race, checked below).
    const streaming = outcomes.filter((outcome) => outcome.firstEventAt !== undefined && outcome.firstEventAt < signalAt && outcome.endedAt > signalAt);
    expect(streaming.length).toBeGreaterThan(0);
    expect(streaming.filter((outcome) => !outcome.ok), describeOutcomes(streaming)).toEqual([]);
    for (const exit of victimExits) {
      expect(exit.code).toBe(0);
      expect(exit.at - signalAt).toBeLessThan(GRACE_MS);
    }
  });

  it('should complete the stream a kept-alive connection was carrying when the drain began', () => {
    const [stream] = result.drainProbe;
    expect(stream?.status).toBe(200);
    expect(stream?.complete).toBe(true);
    expect(stream?.body.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  // Regression test (failed at 867354a, fixed in 3c67ed7): such a request got fastify's built-in
  // return503OnClosing answer, {"error":"Service Unavailable","message":…,"statusCode":503}, in
  // no client format; SDK clients in the load saw it too. Served, or refused in the client's
  // format with connection: close, is correct.
  it('should serve a request that reaches a draining ingress, or refuse it in the client format', () => {
    const second = result.drainProbe[1];
    expect(second).toBeDefined();
    if (second?.status === 200) return;
    expect(second?.status).toBe(503);
    expect(second?.headers['connection']).toBe('close');
    const body = JSON.parse(second?.body ?? '{}') as { error?: { message?: unknown; type?: unknown } };
    expect(typeof body.error?.message).toBe('string');
    expect(typeof body.error?.type).toBe('string');
  });

  // A request an SDK sends on a kept-alive connection just as the drained ingress closes it (idle
  // at the signal) is lost on the wire: the client sees a connection error. Inherent to closing
  // a listener without a preStop delay (docs/operations.md), so bounded, not forbidden: at most
  // one per connection open to that ingress, and never anything but a connection error.
  it('should fail at most the one request each kept-alive connection to the drained ingress was about to send, with a connection error', () => {
    const { outcomes, signalAt, ingressOpenAtSignal } = result;
    const failed = outcomes.filter((outcome) => outcome.endedAt > signalAt && !outcome.ok && outcome.status !== 429);
    expect(failed.length, describeOutcomes(failed)).toBeLessThanOrEqual(ingressOpenAtSignal);
    for (const outcome of failed) expect(outcome.status, describeOutcomes([outcome])).toBeUndefined();
  });

  it('should serve every request after the drain through the surviving router and ingress', () => {
    const { after } = result;
    const big = after.filter((outcome) => outcome.tenant === 'big');
    expect(big.length).toBeGreaterThan(AFTER / 2);
    expect(big.filter((outcome) => !outcome.ok), describeOutcomes(big)).toEqual([]);
  });

  // Regression: Node counts a connection that has not sent a request yet (a TCP health check,
  // a pre-connecting client) as active, never idle; the drain once waited its whole grace
  // period for such connections (serve() in services/gateway/src/start-targets.ts now closes them).
  it('should exit at once when drained, even with a connection that never sent a request (survivors, after the load)', async () => {
    const targets = [cluster.ingresses[1], cluster.routers[1]] as SwitchyardProcess[];
    const sockets = targets.map((target) => connect({ host: '127.0.0.1', port: target.port }));
    await Promise.all(sockets.map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
    const signalledAt = performance.now();
    const exits = targets.map((target) => exitOf(target));
    for (const target of targets) target.child.kill('SIGTERM');
    const exited = await Promise.all(exits);
    for (const socket of sockets) socket.destroy();
    expect(exited.map((exit) => exit.at - signalledAt < 3_000)).toEqual([true, true]);
  }, GRACE_MS + 10_000);
});

describe('horizontal scale: SIGKILL one router and one ingress under load', () => {
  let cluster: Cluster;
  let result: ScenarioResult;

  beforeAll(async () => {
    cluster = await startCluster();
    result = await runScenario(cluster, 'SIGKILL', 1, { stallRedisMs: STALL_MS });
  }, 110_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 40_000);

  commonChecks(() => result);

  it('should lose usage, if at all, only of answers the killed router gave in its last moments', () => {
    const { outcomes, stallAt = 0 } = result;
    const missing = usageComparison(result).reduce((sum, row) => sum + Math.max(0, row.answered - row.successes), 0);
    // Answers that ended from shortly before the stall on; everything earlier reached Redis.
    const recent = outcomes.filter((outcome) => outcome.ok && outcome.endedAt >= stallAt - 500).length;
    expect(missing).toBeLessThanOrEqual(recent);
  });

  // Regression test (failed before the usage event was made durable ahead of the answer's last
  // byte): the router emitted it after the end, and the usage sink sent it on a later tick, so a
  // router that died in between lost the usage of answers its clients saw succeed (about 1 run in
  // 3 without a fault; certain with the STALL_MS Redis stall before the kill). Now the last byte
  // waits for the event to reach Redis: answers still waiting when the router dies reach
  // their clients as errors, never as successes without usage.
  it('should have a usage record for every answered request, those of the killed router included', () => {
    for (const row of usageComparison(result)) {
      expect(row.successes, `${row.tenant}/${row.model}: usage successes ≥ answered (${row.answered})`).toBeGreaterThanOrEqual(row.answered);
    }
  });

  it('should finish the streams the surviving ingress carried to the surviving router, and never pass a cut stream off as complete', () => {
    const onSurvivor = result.pinned.filter((stream) => stream.ingress === 0);
    expect(onSurvivor).toHaveLength(PINNED_PER_INGRESS);
    for (const stream of onSurvivor.filter((candidate) => candidate.router === 0)) expect(completedStream(stream)).toBe(true);
    const cut = onSurvivor.filter((stream) => stream.router === 1);
    expect(cut.length).toBeGreaterThan(0);
    // The client notices: either an error event or a broken connection, never a clean end without one.
    for (const stream of cut) expect(stream.readError !== undefined || errorEventStream(stream)).toBe(true);
  });

  // Regression test (failed at 867354a, fixed in 3c67ed7): undici's pool.stream() destroyed the
  // client's response when the router's body failed, so the client saw "other side closed" and
  // an unterminated chunked body instead of the error event design §1 and operations.md promise
  // while the ingress itself is alive.
  it("should end a stream whose router died with the format's error event, the ingress being alive", () => {
    const cut = result.pinned.filter((stream) => stream.ingress === 0 && stream.router === 1);
    expect(cut.length).toBeGreaterThan(0);
    for (const stream of cut) {
      expect({ readError: stream.readError, errorEvent: errorEventStream(stream) }).toEqual({ readError: undefined, errorEvent: true });
    }
  });

  it('should serve every request after the kill through the surviving router and ingress', () => {
    const { after } = result;
    const big = after.filter((outcome) => outcome.tenant === 'big');
    expect(big.length).toBeGreaterThan(AFTER / 2);
    expect(big.filter((outcome) => !outcome.ok), describeOutcomes(big)).toEqual([]);
  });

  it('should fail only requests the dead processes held: a bounded number, each a connection error or a server error', () => {
    const { outcomes, signalAt, sampledAt, ingressOpenAtSignal, routerInflightAtSignal } = result;
    // Lost with the dead ingress: what its connections carried or were about to carry. Lost with
    // the dead router: what it was serving (a stream cut mid-answer ends with an error event).
    // Plus what started while those two were being read, which either may have taken.
    const startedWhileSampling = outcomes.filter((outcome) => outcome.startedAt >= sampledAt && outcome.startedAt <= signalAt).length;
    const failed = outcomes.filter((outcome) => outcome.endedAt > signalAt && !outcome.ok && outcome.status !== 429);
    expect(failed.length, describeOutcomes(failed)).toBeLessThanOrEqual(ingressOpenAtSignal + routerInflightAtSignal + startedWhileSampling);
    for (const outcome of failed) expect(outcome.status === undefined || outcome.status >= 500, describeOutcomes([outcome])).toBe(true);
  });
});
