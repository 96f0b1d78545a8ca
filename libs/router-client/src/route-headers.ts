import type { FormatId } from '@switchyard/canonical';
import type { Operation, Route } from '@switchyard/formats';
import type { Identity } from './route-request.ts';

/** Internal headers carrying the route and identity over the ingress → router hop. */
export const ROUTE_HEADER = 'x-switchyard-route';
export const TENANT_HEADER = 'x-switchyard-tenant';
export const KEY_ID_HEADER = 'x-switchyard-key-id';
export const REQUEST_ID_HEADER = 'x-request-id';
export const QUERY_HEADER = 'x-switchyard-query';
export const ESTIMATED_TOKENS_HEADER = 'x-switchyard-estimated-tokens';
/** Client headers forwarded to the router as-is. */
export const PASSED_HEADERS = ['anthropic-beta', 'x-switchyard-include-reasoning', 'traceparent', 'tracestate'] as const;

export const ROUTER_PATH = '/internal/v1/route';

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

export function identityHeaders(identity: Identity, estimatedTokens: number): Record<string, string> {
  return {
    [TENANT_HEADER]: identity.tenantId,
    [KEY_ID_HEADER]: identity.keyId,
    [REQUEST_ID_HEADER]: identity.requestId,
    [ESTIMATED_TOKENS_HEADER]: String(estimatedTokens),
  };
}
