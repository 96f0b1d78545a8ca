import { Agent } from '@switchyard/http-client';
import { dispatchUpstream, type UpstreamResponse } from './upstream-response.ts';

export type { UpstreamBody, UpstreamResponse } from './upstream-response.ts';

export interface UpstreamRequest {
  origin: string;
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
  body: string | Buffer;
  signal: AbortSignal;
  /** Time allowed until response headers arrive. */
  headersTimeoutMs: number;
  /** Time allowed between two body chunks (stream idle timeout). */
  bodyTimeoutMs: number;
}

/**
 * The one HTTP client every upstream call goes through: an undici Agent with keep-alive pools
 * per origin, so a busy router reuses warm connections instead of paying TCP (and TLS) setup
 * per request.
 */
export class UpstreamClient {
  readonly #agent: Agent;

  constructor(options: { connectionsPerOrigin?: number; keepAliveTimeoutMs?: number } = {}) {
    this.#agent = new Agent({
      // No cap by default: a stream holds its connection for minutes, and a cap would make the
      // next stream wait for one to end (an outage at scale, docs/performance.md).
      connections: options.connectionsPerOrigin ?? null,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
      pipelining: 1,
    });
  }

  send(request: UpstreamRequest): Promise<UpstreamResponse> {
    return dispatchUpstream(
      this.#agent,
      {
        origin: request.origin,
        path: request.path,
        method: 'POST',
        headers: request.headers,
        body: request.body,
        headersTimeout: request.headersTimeoutMs,
        bodyTimeout: request.bodyTimeoutMs,
      },
      request.signal,
    );
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}
