import type { FormatId } from '@switchyard/canonical';
import type { Operation, Route } from '@switchyard/formats';
import type { Identity } from './route-request.ts';

/**
 * Internal headers carrying the route and identity on the router's HTTP route (ROUTER_PATH): one
 * request per HTTP call, as ingresses sent them before the multiplexed hop (hop/). Routers still
 * serve it and ingresses fall back to it where the hop cannot be had: a rollout that runs old
 * and new side by side, a service mesh's proxy that refuses the upgrade.
 */
export const ROUTE_HEADER = 'x-switchyard-route';
export const TENANT_HEADER = 'x-switchyard-tenant';
export const KEY_ID_HEADER = 'x-switchyard-key-id';
export const REQUEST_ID_HEADER = 'x-request-id';
export const QUERY_HEADER = 'x-switchyard-query';
export const ESTIMATED_TOKENS_HEADER = 'x-switchyard-estimated-tokens';
export const ADMITTED_AT_HEADER = 'x-switchyard-admitted-at';
/** Client headers forwarded to the router as-is. */
export const PASSED_HEADERS = ['anthropic-beta', 'x-switchyard-include-reasoning', 'traceparent', 'tracestate'] as const;

export const ROUTER_PATH = '/internal/v1/route';
/** The raw client body's content type on the hop (the route header says what it holds). */
export const HOP_CONTENT_TYPE = 'application/octet-stream';

export function encodeRoute(route: Route): string {
  return JSON.stringify(route);
}

/** Parses the internal route header; undefined when it is missing or malformed. */
export function decodeRoute(value: string | undefined): Route | undefined {
  if (value === undefined) return undefined;
  try {
    const parsed = JSON.parse(value) as { format?: FormatId; operation?: Operation };
    return typeof parsed.format === 'string' && typeof parsed.operation === 'string' ? (parsed as Route) : undefined;
  } catch {
    return undefined;
  }
}

/** `admittedAt` (RouteRequest.admittedAt) travels only when known. */
export function identityHeaders(identity: Identity, estimatedTokens: number, admittedAt?: number): Record<string, string> {
  const headers: Record<string, string> = {
    [TENANT_HEADER]: identity.tenantId,
    [KEY_ID_HEADER]: identity.keyId,
    [REQUEST_ID_HEADER]: identity.requestId,
    [ESTIMATED_TOKENS_HEADER]: String(estimatedTokens),
  };
  if (admittedAt !== undefined) headers[ADMITTED_AT_HEADER] = String(admittedAt);
  return headers;
}

/** Parses the internal admitted-at header: a whole number of ms, else undefined (missing or malformed). */
export function decodeAdmittedAt(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}
