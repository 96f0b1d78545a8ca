import type { CanonicalRequest, CanonicalResponse, CanonicalUsage } from '@switchyard/canonical';
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
  timeouts: { headersMs?: number; idleMs?: number; attemptMs?: number; totalMs?: number } | undefined;
  /** Set when a fallback model serves the answer (sent as x-switchyard-fallback-model). */
  fallbackModel?: string;
  warnings: string[];
  /** The id the client's answer carries when the router keeps state for it (stored Responses). */
  answerId: string | undefined;
}

/** How an exchange ended, for metrics, limits and usage events. */
export interface ExchangeOutcome {
  status: number;
  usage: CanonicalUsage;
  /** performance.now() when the first content byte was written. */
  firstByteAt?: number;
  /** The complete answer, when it was decoded (same-format JSON answers are only summarised). */
  answer?: CanonicalResponse;
  /** The model the upstream says answered, when the answer was not decoded. */
  responseModel?: string;
  /** The public model, for operations without an exchange (embeddings, failures before one). */
  model?: string;
  /** Whether the client asked for a stream, when no exchange says so (failures before one). */
  stream?: boolean;
}
