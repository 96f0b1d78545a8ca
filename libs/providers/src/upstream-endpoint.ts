import type { FormatId } from '@switchyard/canonical';
import type { ProviderRecord } from '@switchyard/catalog-client';

/** Where and how to call one provider: resolved once per catalog version, not per request. */
export interface UpstreamEndpoint {
  providerId: string;
  protocol: FormatId;
  /** Scheme, host and port of the base URL. */
  origin: string;
  /** Path part of the base URL as the vendor SDK takes it (`/v1` for the OpenAI formats, '' for the others). */
  basePath: string;
  headers: Record<string, string>;
  /** Returns the next key of the provider's rotation (undefined when it has none). */
  nextApiKey(): string | undefined;
}

/** The base URL the simulator serves a protocol under, as each vendor SDK expects it. */
export function simulatorBaseUrl(simulatorUrl: string, protocol: FormatId): string {
  return protocol === 'chat-completions' || protocol === 'responses' ? `${simulatorUrl}/v1` : simulatorUrl;
}

export function resolveEndpoint(provider: ProviderRecord, simulatorUrl: string | undefined): UpstreamEndpoint {
  let baseUrl = provider.baseUrl;
  if (provider.protocol === 'simulator') {
    if (simulatorUrl === undefined) throw new Error(`provider ${provider.id} needs the built-in simulator, which is not running`);
    baseUrl = simulatorBaseUrl(simulatorUrl, provider.speaks);
  }
  if (baseUrl === undefined) throw new Error(`provider ${provider.id} has no baseUrl`);
  const keys = provider.apiKeys;
  const url = new URL(baseUrl);
  let turn = 0;
  return {
    providerId: provider.id,
    protocol: provider.speaks,
    origin: url.origin,
    basePath: url.pathname.replace(/\/+$/, ''),
    headers: provider.headers,
    nextApiKey: () => (keys.length === 0 ? undefined : keys[turn++ % keys.length]),
  };
}
