import type { AnswerWriter, Route } from '@switchyard/formats';

/** Who is asking, as established by ingress. Routers trust it: the hop is internal (NetworkPolicy). */
export interface Identity {
  tenantId: string;
  keyId: string;
  requestId: string;
}

/** One request handed from ingress to a router: the route read from the path, and the raw body. */
export interface RouteRequest {
  route: Route;
  identity: Identity;
  body: Buffer;
  /** Client headers the router may need (`anthropic-beta`, `x-switchyard-include-reasoning`). */
  headers: Record<string, string>;
  /** Pagination and similar query parameters (never `key`). */
  query: Record<string, string>;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /** When ingress received the request (ms, performance.now()). */
  receivedAt: number;
  /** Tokens ingress reserved at admission; the router charges the difference to the real usage. */
  estimatedTokens: number;
  /**
   * When the limiter admitted the request, on its store's clock (`AdmissionResult.admittedAt`).
   * The router passes it back to `reconcile`, which can then give tokens estimated too high back
   * to the window slot they were reserved in. Absent when admission reserved nothing that a
   * reconcile could give back (no limits, or a degraded answer).
   */
  admittedAt?: number;
}

/**
 * Serves one routed request by writing the whole answer (status, headers, body or stream)
 * to `response`. In `all` mode ingress passes its own client response (no hop); in split mode
 * ingress passes its client response to the hop forwarder, and the router writes each answer
 * into one stream of the hop. Ingress's handlers take the client's ServerResponse
 * (`RouteHandler<ServerResponse>`); the router's takes any AnswerWriter, so it serves both.
 */
export type RouteHandler<Writer extends AnswerWriter = AnswerWriter> = (request: RouteRequest, response: Writer) => Promise<void>;
