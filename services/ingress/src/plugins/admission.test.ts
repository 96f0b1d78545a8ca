import type { Principal } from '@switchyard/catalog-client';
import { createMemoryLimiter, type LimitSet, type Limiter } from '@switchyard/ratelimit';
import { Metrics } from '@switchyard/telemetry';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { estimateTokensFromBytes, formatDuration, rateLimitHeaders, registerAdmission } from './admission.ts';

describe('admission helpers', () => {
  it('should format durations as OpenAI does', () => {
    expect(formatDuration(12)).toBe('12ms');
    expect(formatDuration(1000)).toBe('1s');
    expect(formatDuration(360_000)).toBe('6m0s');
    expect(formatDuration(61_500)).toBe('1m2s');
  });

  it('should write the requests and tokens header trios', () => {
    expect(
      rateLimitHeaders({
        allowed: true,
        retryAfterMs: 0,
        degraded: false,
        requests: { limit: 60, remaining: 59, resetMs: 1000 },
        tokens: { limit: 1000, remaining: 900, resetMs: 6000 },
      }),
    ).toEqual({
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-remaining-requests': '59',
      'x-ratelimit-reset-requests': '1s',
      'x-ratelimit-limit-tokens': '1000',
      'x-ratelimit-remaining-tokens': '900',
      'x-ratelimit-reset-tokens': '6s',
    });
  });

  it('should estimate at least one token', () => {
    expect(estimateTokensFromBytes(0)).toBe(1);
    expect(estimateTokensFromBytes(400)).toBe(100);
  });
});

describe('admission hook', () => {
  /** An ingress with only the admission hook, a fixed principal and the real memory limiter, counting releases. */
  async function admitTwice(tenantLimits: LimitSet, keyLimits: LimitSet): Promise<{ statuses: number[]; releases: number }> {
    const limiter = createMemoryLimiter();
    let releases = 0;
    const counting: Limiter = { ...limiter, release: (request) => (releases++, limiter.release(request)) };
    const principal = {
      tenant: { id: 'acme', models: ['*'], limits: tenantLimits },
      key: { id: 'ci', tenantId: 'acme', sha256: '0'.repeat(64), limits: keyLimits },
    } as Principal;
    const app = Fastify();
    app.decorateRequest('principal', undefined);
    app.addHook('onRequest', async (request) => {
      request.principal = principal;
    });
    registerAdmission(app, { limiter: counting, metrics: new Metrics() });
    app.post('/v1/chat/completions', { config: { ingress: { format: 'chat-completions', operation: 'generate' } } }, async () => ({ ok: true }));
    // One after the other: with a limit of one slot, the second is admitted only if the first gave its slot back.
    const statuses: number[] = [];
    for (let request = 0; request < 2; request++) {
      statuses.push((await app.inject({ method: 'POST', url: '/v1/chat/completions', payload: { model: 'm' } })).statusCode);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await app.close();
    await limiter.close();
    return { statuses, releases };
  }

  it('should give a concurrency slot back when the response closes', async () => {
    expect(await admitTwice({ concurrency: 1 }, {})).toEqual({ statuses: [200, 200], releases: 2 });
    expect(await admitTwice({}, { concurrency: 1 })).toEqual({ statuses: [200, 200], releases: 2 });
  });

  it('should ask the store nothing more when no concurrency limit took a slot', async () => {
    expect(await admitTwice({ rpm: 100, tpm: 100_000 }, { rpm: 50 })).toEqual({ statuses: [200, 200], releases: 0 });
  });
});
