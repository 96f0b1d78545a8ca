import type { CanonicalRequest, CanonicalUsage } from '@switchyard/canonical';
import type { DeploymentRecord } from '@switchyard/catalog-client';
import type { WireFormat } from '@switchyard/formats';
import type { UpstreamEndpoint } from '@switchyard/providers';
import type { RouteRequest } from '@switchyard/router-client';

/** Everything known about one client request once its deployment is chosen. */
export interface Exchange {
  request: RouteRequest;
  clientFormat: WireFormat;
  upstreamFormat: WireFormat;
  /** Client format equals upstream protocol: the body goes up as sent and bytes come back as sent. */
  sameFormat: boolean;
  canonical: CanonicalRequest;
  deployment: DeploymentRecord;
  endpoint: UpstreamEndpoint;
  /** The catalog's output limit for the model (default max tokens toward messages). */
  maxOutputTokens: number | undefined;
  /** The model's own upstream timeouts, over the router defaults. */
  timeouts: { headersMs?: number; idleMs?: number } | undefined;
  warnings: string[];
}

/** How an exchange ended, for metrics, limits and usage events. */
export interface ExchangeOutcome {
  status: number;
  usage: CanonicalUsage;
  /** ms since the request reached ingress, when the first content byte was written. */
  firstByteAt?: number;
}
