import type * as NodeHttp from 'node:http';
import type { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';

// Required, not imported: an ESM import of node:http reads every export of it, its lazy
// WebSocket ones too, and so loads Node's bundled undici, ~3 MB of heap that nothing here uses
// (docs/performance.md, "Memory at rest").
const { ServerResponse } = createRequire(import.meta.url)('node:http') as typeof NodeHttp;

/**
 * The response ingress's server hands out. Headers decided before the answer (admission's
 * `x-ratelimit-*`) are held here and go out in the answer's own `writeHead`, under its headers
 * of the same name, rather than being `setHeader`'d ahead: a response with any header set ahead
 * leaves Node's fast path for `writeHead` (each header of the head is then set and checked one by
 * one), which with the six rate-limit headers cost about 1 µs of every request
 * (docs/performance.md). Whatever writes the answer (the router in `all`, the hop relay in split,
 * fastify, an error) writes the held headers with it, without knowing of them.
 */
export class ClientResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** Names in lower case, as Node's own; the object is this response's to complete. */
  #held: Record<string, string> | undefined = undefined;

  /** Adds `headers` to the head this response will write. */
  holdHeaders(headers: Record<string, string>): void {
    this.#held = headers;
  }

  override writeHead(statusCode: number, reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[], headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this {
    const held = this.#held;
    if (held === undefined) return super.writeHead(statusCode, reason as string, headers);
    this.#held = undefined;
    const given = typeof reason === 'string' ? headers : reason;
    if (given === undefined || Array.isArray(given)) {
      // Headers set ahead (the hop relay sets the router's) keep their place over the held ones.
      for (const name in held) if (!this.hasHeader(name)) this.setHeader(name, held[name] as string);
      return super.writeHead(statusCode, reason as string, headers);
    }
    const merged: OutgoingHttpHeaders = held;
    for (const name in given) merged[name] = given[name];
    return typeof reason === 'string' ? super.writeHead(statusCode, reason, merged) : super.writeHead(statusCode, merged);
  }
}
