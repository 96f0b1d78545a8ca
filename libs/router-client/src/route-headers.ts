import type { FormatId } from '@switchyard/canonical';
import type { Operation, Route } from '@switchyard/formats';

/**
 * Internal headers carrying the route and identity to the router's HTTP route (ROUTER_PATH). Ingresses
 * use the multiplexed hop (hop/) since it came; routers still serve this route, so that ingresses
 * of the release before it keep working while a rollout replaces routers first.
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

/** Parses the internal admitted-at header: a whole number of ms, else undefined (missing or malformed). */
export function decodeAdmittedAt(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}
