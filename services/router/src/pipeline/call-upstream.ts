import { GatewayError } from '@switchyard/canonical';
import type { WireFormat } from '@switchyard/formats';
import type { UpstreamClient, UpstreamEndpoint, UpstreamResponse } from '@switchyard/providers';

export interface UpstreamTimeouts {
  /** Until the upstream's response headers arrive (covers time to first token of most vendors). */
  headersMs: number;
  /** Longest silence between two body chunks. */
  idleMs: number;
  /** One whole non-streaming attempt (bounds time to headers when shorter). */
  attemptMs?: number;
  /** The whole request, retries and fallbacks included. */
  totalMs: number;
}

/**
 * Sends a body to a deployment and turns transport failures into typed errors: a timeout is a
 * 504, a refused or reset connection a 502, the client going away a 499.
 */
export async function callUpstream(options: {
  client: UpstreamClient;
  endpoint: UpstreamEndpoint;
  format: WireFormat;
  path: string;
  body: string;
  extraHeaders: Record<string, string>;
  signal: AbortSignal;
  timeouts: Pick<UpstreamTimeouts, 'headersMs' | 'idleMs'>;
}): Promise<UpstreamResponse> {
  const { endpoint, format } = options;
  const apiKey = endpoint.nextApiKey();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...format.upstream.requestHeaders(apiKey),
    ...endpoint.headers,
    ...options.extraHeaders,
  };
  try {
    return await options.client.send({
      origin: endpoint.origin,
      path: endpoint.basePath + options.path,
      headers,
      body: options.body,
      signal: options.signal,
      headersTimeoutMs: options.timeouts.headersMs,
      bodyTimeoutMs: options.timeouts.idleMs,
    });
  } catch (error) {
    throw transportError(error, options.signal);
  }
}

/** Maps undici's failure codes to error kinds. */
export function transportError(error: unknown, signal: AbortSignal): GatewayError {
  if (GatewayError.isInstance(error)) return error;
  if (signal.aborted) return new GatewayError('client_closed', 'Client closed the request.', { cause: error });
  const code = (error as { code?: string }).code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new GatewayError('upstream_timeout', 'The upstream did not answer in time.', { cause: error });
  }
  return new GatewayError('upstream_error', 'The upstream could not be reached or broke the connection.', { cause: error });
}

/** An upstream's 200 whose body is not JSON (cut off, an HTML page from a proxy) is the upstream's failure, not ours. */
export function parseAnswerBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new GatewayError('upstream_error', 'The upstream answered with a body that is not JSON.', { cause: error });
  }
}

/** Reads an upstream's error answer as JSON when it is JSON, as text otherwise. */
export async function readErrorBody(response: UpstreamResponse): Promise<unknown> {
  const text = await response.body.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
