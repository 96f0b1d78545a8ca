import { startRedis, type RedisServer } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver } from './support/otlp-receiver.ts';
import { startReplicas, type Replicas } from './support/replicas.ts';

const QUERY_KEY = 'sk-sy-query-key-tenant-0123456789abcdef';
/** Well-formed but unknown: the 401 path. */
const UNKNOWN_KEY = 'sk-sy-query-key-unknown-0123456789abcd';
const RPM = 3;

/**
 * `?key=` (the Gemini SDKs' and curl's way) on success, 401 and 429 answers: the key must not
 * reach any process's log, `/metrics`, an exported span or the upstream (design §4).
 */
describe('generate-content with ?key= never leaks the key (split topology, two ingresses, tracing on)', () => {
  let redis: RedisServer;
  let receiver: OtlpReceiver;
  let replicas: Replicas;
  const statuses: number[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    receiver = await startOtlpReceiver();
    replicas = await startReplicas({
      redisUrl: redis.url,
      ingresses: 2,
      env: {
        // The most verbose level: whatever any log line at any level says is checked.
        LOG_LEVEL: 'trace',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.tracesUrl,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
      config: (simulatorUrl) => `
providers:
  up: { protocol: generate-content, baseUrl: ${simulatorUrl} }
models:
  - { name: m, deployments: [{ provider: up, model: sim-gemini }] }
tenants:
  - { id: query, limits: { rpm: ${RPM} }, keys: [{ id: k, key: ${QUERY_KEY} }] }
`,
    });
  }, 60_000);

  afterAll(async () => {
    await replicas?.stop();
    await receiver?.close();
    await redis?.stop();
  });

  const generate = async (replica: number, key: string, stream = false): Promise<{ status: number; headers: Headers; body: string }> => {
    const method = stream ? 'streamGenerateContent?alt=sse&' : 'generateContent?';
    const response = await fetch(`${replicas.ingresses[replica]?.url}/v1beta/models/m:${method}key=${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hello [[sim:words=3]]' }] }] }),
    });
    const answer = { status: response.status, headers: response.headers, body: await response.text() };
    statuses.push(answer.status);
    return answer;
  };

  it('should answer ?key= requests: success (unary and stream), 429 over the limit, 401 for an unknown key', async () => {
    const unary = await generate(0, QUERY_KEY);
    expect(unary.status).toBe(200);
    expect(JSON.parse(unary.body)).toMatchObject({ candidates: [{ content: { role: 'model' } }] });
    const streamed = await generate(1, QUERY_KEY, true);
    expect(streamed.status).toBe(200);
    expect(streamed.body).toContain('data: {');
    expect((await generate(0, QUERY_KEY)).status).toBe(200);

    for (const replica of [0, 1]) {
      const refused = await generate(replica, QUERY_KEY);
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
      expect(refused.headers.get('x-ratelimit-limit-requests')).toBe(String(RPM));
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      const unknown = await generate(replica, UNKNOWN_KEY);
      expect(unknown.status).toBe(401);
      expect(JSON.parse(unknown.body)).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
    }
    const list = await fetch(`${replicas.ingresses[0]?.url}/v1beta/models?key=${QUERY_KEY}`);
    expect(list.status).toBe(200);
    expect(JSON.stringify(await list.json())).toContain('models/m');
  });

  it('should keep the key out of every log, /metrics, exported span and upstream request', async () => {
    // Every forwarded (admitted) request produces an ingress server span; refusals are answered
    // before any span. Wait for them all so the export is complete.
    const forwarded = statuses.filter((status) => status === 200).length;
    await receiver.waitFor(
      (spans) => spans.filter((span) => span.serviceName === 'switchyard-ingress' && span.kind === SPAN_KIND.server).length >= forwarded,
      10_000,
    );
    const metrics = await Promise.all(
      replicas.processes.filter((process) => process !== replicas.simulator).map(async (process) => (await fetch(`${process.url}/metrics`)).text()),
    );
    const upstream = await (await fetch(`${replicas.simulator.url}/_sim/requests`)).text();
    // Stopped before the logs are read: whatever a process still held in its log buffer is written at exit.
    await replicas.stop();
    const accessLines = replicas.router.output().split('\n').filter((line) => line.includes('"msg":"request"')).length;
    expect(accessLines).toBe(forwarded);
    const logs = replicas.processes.map((process) => process.output()).join('\n');
    const exported = receiver.rawBodies().join('\n');
    // Not vacuous: the requests are in each place, only the key is not.
    expect(logs).toContain('"format":"generate-content"');
    expect(metrics.join('\n')).toMatch(/switchyard_rate_limited_total\{[^}]*\} [1-9]/);
    expect(exported).toContain('"switchyard.tenant","value":{"stringValue":"query"}');
    expect(upstream).toContain('hello');
    for (const place of [logs, ...metrics, exported, upstream]) {
      expect(place).not.toContain(QUERY_KEY);
      expect(place).not.toContain(UNKNOWN_KEY);
      expect(place).not.toContain('key=sk-sy-');
    }
  });
});
