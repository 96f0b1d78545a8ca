import { startRedis, type RedisServer } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatModelConfig, eventually, metricValue, postChat, sleep, startReplicas, type Answer, type Replicas } from './support/replicas.ts';

const RPM_KEY = 'sk-sy-outage-rpm-key-0123456789abcdef';
const BUDGET_KEY = 'sk-sy-outage-budget-key-0123456789abc';
const LOAD_KEY = 'sk-sy-outage-load-key-0123456789abcdef';
const RPM = 4;
const REPLICAS = 3;
/** Bound on any one exchange, streams included: past it the request counts as hung. */
const REQUEST_BOUND_MS = 10_000;
const DEGRADED_LOG = 'rate-limit store unreachable: onStoreFailure policy in force';
/** A stream of about 2 s, so it is surely in flight when Redis dies. */
const SLOW_STREAM = 'in flight [[sim:chunk_delay_ms=50,words=40]]';

/**
 * Redis killed under load (issue 4, design §4): rates fail open to a per-process window on
 * each replica, budgets fail closed, nothing hangs or dies, and Redis-backed admission resumes
 * on every ingress once the server is back on its port.
 */
describe('limits while Redis dies mid-load and comes back (three ingresses)', () => {
  let redis: RedisServer;
  let replicas: Replicas;
  let ingresses: Replicas['ingresses'] = [];

  beforeAll(async () => {
    redis = await startRedis();
    replicas = await startReplicas({
      redisUrl: redis.url,
      ingresses: REPLICAS,
      config: (simulatorUrl) =>
        chatModelConfig(simulatorUrl, [
          `{ id: rpm, limits: { rpm: ${RPM} }, keys: [{ id: k, key: ${RPM_KEY} }] }`,
          `{ id: budget, limits: { dailyTokens: 1000000 }, keys: [{ id: k, key: ${BUDGET_KEY} }] }`,
          `{ id: load, limits: { rpm: 100000, concurrency: 1000 }, keys: [{ id: k, key: ${LOAD_KEY} }] }`,
        ]),
    });
    ingresses = replicas.ingresses;
  }, 60_000);

  afterAll(async () => {
    await replicas?.stop();
    await redis?.stop();
  });

  const post = (replica: number, key: string, content: string, stream = false): Promise<Answer> =>
    postChat(ingresses[replica % REPLICAS]?.url ?? '', key, content, { stream, signal: AbortSignal.timeout(REQUEST_BOUND_MS) });

  it('should admit with Redis before the outage', async () => {
    // Counted in Redis only: the replicas' fallback windows will not know of it.
    expect((await post(0, RPM_KEY, 'before')).status).toBe(200);
    for (let replica = 0; replica < REPLICAS; replica++) {
      expect((await post(replica, BUDGET_KEY, 'before')).status).toBe(200);
      expect((await post(replica, LOAD_KEY, 'before')).status).toBe(200);
    }
    for (const ingress of ingresses) expect(await metricValue(ingress.url, 'switchyard_limiter_degraded')).toBe(0);
  });

  it('should finish in-flight streams and requests when Redis is killed under them, without a hang', async () => {
    // Streams whose headers have arrived (admitted through Redis) but whose bodies are still coming.
    const streams = await Promise.all(
      Array.from({ length: 2 * REPLICAS }, async (_, index) => {
        const response = await fetch(`${ingresses[index % REPLICAS]?.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${LOAD_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: SLOW_STREAM }] }),
          signal: AbortSignal.timeout(REQUEST_BOUND_MS),
        });
        expect(response.status).toBe(200);
        return response;
      }),
    );
    // Unary requests keep arriving on every ingress before, during and after the kill.
    let loading = true;
    const load = Promise.all(
      Array.from({ length: REPLICAS }, async (_, replica) => {
        const statuses: number[] = [];
        while (loading) statuses.push((await post(replica, LOAD_KEY, 'load [[sim:latency_ms=20]]')).status);
        return statuses;
      }),
    );
    await sleep(200);
    await redis.kill();
    await sleep(1_000);
    loading = false;

    const bodies = await Promise.all(streams.map((response) => response.text()));
    for (const body of bodies) expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const statuses = (await load).flat();
    expect(statuses.length).toBeGreaterThan(REPLICAS);
    expect(new Set(statuses)).toEqual(new Set([200]));
  });

  it('should bound each replica by its own window during the outage: at most replicas × rpm admitted', async () => {
    // Twice the limit at every replica, all at once. Each process has only its own window, which
    // knows nothing of the admission Redis made before: each admits exactly RPM, more than the
    // shared limit in total, never more than REPLICAS × RPM.
    const results = await Promise.all(Array.from({ length: 2 * RPM * REPLICAS }, (_, index) => post(index, RPM_KEY, 'during')));
    const admitted = results.filter((result) => result.status === 200);
    const refused = results.filter((result) => result.status === 429);
    expect(admitted).toHaveLength(REPLICAS * RPM);
    expect(refused).toHaveLength(REPLICAS * RPM);
    for (let replica = 0; replica < REPLICAS; replica++) {
      const own = results.filter((_, index) => index % REPLICAS === replica);
      expect(own.filter((result) => result.status === 200)).toHaveLength(RPM);
    }
    const sample = refused[0];
    expect(JSON.parse(sample?.body ?? '{}')).toMatchObject({ error: { type: 'requests', code: 'rate_limit_exceeded' } });
    expect(sample?.headers.get('x-ratelimit-limit-requests')).toBe(String(RPM));
    expect(Number(sample?.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('should refuse a tenant with a token budget (closed policy) on every ingress during the outage', async () => {
    for (let replica = 0; replica < REPLICAS; replica++) {
      const refused = await post(replica, BUDGET_KEY, 'budget during');
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'insufficient_quota' } });
      expect(refused.headers.get('x-should-retry')).toBe('false');
    }
  });

  it('should show the outage in metrics and logs, with every process alive', async () => {
    for (const process of [...ingresses, replicas.router]) {
      expect(await metricValue(process.url, 'switchyard_limiter_degraded')).toBe(1);
      expect(await process.waitForOutput(DEGRADED_LOG)).toBe(true);
    }
    for (const process of replicas.processes) expect(process.child.exitCode).toBeNull();
  });

  it('should resume Redis-backed admission on every ingress once Redis is back on its port', async () => {
    await redis.restart();
    const recovered = await eventually(async () => {
      const values = await Promise.all([...ingresses, replicas.router].map((process) => metricValue(process.url, 'switchyard_limiter_degraded')));
      return values.every((value) => value === 0);
    }, 10_000);
    expect(recovered).toBe(true);
    // Every replica's own window for this tenant is still full from the outage, so these
    // admissions can only come from the (restarted, empty) shared window in Redis.
    for (let index = 0; index < RPM; index++) expect((await post(index, RPM_KEY, 'after')).status).toBe(200);
    // The shared window is now spent: every ingress refuses, whichever admitted the requests.
    for (let replica = 0; replica < REPLICAS; replica++) {
      const refused = await post(replica, RPM_KEY, 'after, over the limit');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
      expect(JSON.parse(refused.body)).toMatchObject({ error: { type: 'requests', code: 'rate_limit_exceeded' } });
    }
    expect((await post(0, BUDGET_KEY, 'budget after')).status).toBe(200);
    for (const ingress of ingresses) expect(await ingress.waitForOutput('rate-limit store reachable again')).toBe(true);
    for (const process of replicas.processes) expect(process.child.exitCode).toBeNull();
  });
});
