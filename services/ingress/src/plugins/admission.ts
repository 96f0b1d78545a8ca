import { GatewayError } from '@switchyard/canonical';
import type { AdmissionResult, Limiter, WindowState } from '@switchyard/ratelimit';
import type { Metrics } from '@switchyard/telemetry';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ClientResponse } from '../client-response.ts';

/**
 * Input tokens guessed from the body size alone (ingress does not parse bodies): about four
 * bytes a token for JSON chat payloads. The router reconciles with the real usage when the
 * answer ends, so the estimate only has to be the right order of magnitude.
 */
export function estimateTokensFromBytes(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / 4));
}

/**
 * Admission against the tenant's and the key's limits: one limiter call per request, after
 * authentication and before anything is forwarded. The concurrency slot is released when the
 * client's response ends or the client goes away.
 */
export function registerAdmission(app: FastifyInstance, options: { limiter: Limiter; metrics: Metrics }): void {
  const { limiter, metrics } = options;
  app.decorateRequest('estimatedTokens', 0);
  app.decorateRequest('admittedAt', undefined);

  app.addHook('preHandler', async (request: FastifyRequest, reply) => {
    const principal = request.principal;
    const operation = request.routeOptions.config.ingress?.operation;
    // Model lists and stored-response reads cost nothing upstream: they are not rate limited.
    if (principal === undefined || operation === undefined || !COUNTED.has(operation)) return;
    const bodyBytes = Buffer.isBuffer(request.body) ? request.body.length : 0;
    request.estimatedTokens = estimateTokensFromBytes(bodyBytes);
    const identity = { tenantId: principal.tenant.id, keyId: principal.key.id, requestId: request.id };
    const result = await limiter.admit({
      ...identity,
      tenantLimits: principal.tenant.limits,
      keyLimits: principal.key.limits,
      estimatedTokens: request.estimatedTokens,
    });
    const headers = rateLimitHeaders(result);
    if (!result.allowed) {
      metrics.rateLimited.inc({ tenant: metrics.tenant(principal.tenant.id), limit: result.limit ?? 'unknown' });
      throw refusal(result, headers);
    }
    request.admittedAt = result.admittedAt;
    const raw = reply.raw;
    // Held for the answer's own head (client-response.ts); fastify's inject has a response of its own.
    if (raw instanceof ClientResponse) raw.holdHeaders(headers);
    else for (const name in headers) raw.setHeader(name, headers[name] as string);
    // Only a concurrency limit takes a slot at admission (decided on these same limits), so
    // only then is there one to give back: without one a release would be a store round
    // trip for nothing.
    if (principal.tenant.limits.concurrency === undefined && principal.key.limits.concurrency === undefined) return;
    // `close` comes once per response: `on` spares the wrapper `once` allocates.
    raw.on('close', () => {
      void limiter.release(identity);
    });
  });
}

const COUNTED = new Set(['generate', 'embeddings', 'count-tokens']);

declare module 'fastify' {
  interface FastifyRequest {
    /** Tokens reserved at admission; the router reconciles the difference to the real usage. */
    estimatedTokens: number;
    /** When the limiter admitted the request, on its store's clock; handed to the router for the reconcile. */
    admittedAt: number | undefined;
  }
}

function refusal(result: AdmissionResult, headers: Record<string, string>): GatewayError {
  const limit = result.limit ?? 'requests';
  // Waiting never helps a request larger than the limit, nor an exhausted budget within its period.
  const final = result.exceedsLimit === true || limit === 'budget';
  const message =
    limit === 'budget'
      ? 'Token budget exhausted for this period.'
      : result.exceedsLimit === true
        ? `This request alone exceeds the ${limit} limit.`
        : `Rate limit reached for ${limit} (${result.scope ?? 'tenant'}). Retry after the indicated time.`;
  return new GatewayError(final ? 'quota_exhausted' : 'rate_limited', message, {
    code: final ? 'insufficient_quota' : 'rate_limit_exceeded',
    limit,
    headers,
    ...(final ? {} : { retryAfterSeconds: Math.max(1, Math.ceil(result.retryAfterMs / 1000)) }),
  });
}

/** OpenAI-style `x-ratelimit-*` headers (protocols.md §7.4), from the tighter of tenant and key windows. */
export function rateLimitHeaders(result: AdmissionResult): Record<string, string> {
  const headers: Record<string, string> = {};
  putWindow(headers, REQUESTS_HEADERS, result.requests);
  putWindow(headers, TOKENS_HEADERS, result.tokens);
  return headers;
}

/** Names spelled out once: they go on every admitted response. */
const REQUESTS_HEADERS = ['x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests'] as const;
const TOKENS_HEADERS = ['x-ratelimit-limit-tokens', 'x-ratelimit-remaining-tokens', 'x-ratelimit-reset-tokens'] as const;

function putWindow(headers: Record<string, string>, [limit, remaining, reset]: readonly [string, string, string], window: WindowState | undefined): void {
  if (window === undefined) return;
  headers[limit] = String(window.limit);
  headers[remaining] = String(window.remaining);
  headers[reset] = formatDuration(window.resetMs);
}

/** Durations the way OpenAI writes them: `12ms`, `1s`, `6m0s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m${seconds % 60}s`;
}
