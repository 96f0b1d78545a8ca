import type { CanonicalMessage } from '@switchyard/canonical';

/**
 * One stored Responses exchange (design §3 "Responses state"): enough to rebuild the
 * conversation for `previous_response_id` against any upstream, and the rendered response
 * object for `GET /v1/responses/{id}`. Scoped to the tenant that created it.
 */
export interface StoredResponse {
  id: string;
  tenantId: string;
  /** The conversation up to and including this response's output, as canonical messages. */
  conversation: CanonicalMessage[];
  /** The response object exactly as the client received it (JSON text). */
  body: string;
}

export interface ResponseStore {
  save(response: StoredResponse): Promise<void>;
  /** Undefined when absent, expired, or owned by another tenant. */
  load(tenantId: string, id: string): Promise<StoredResponse | undefined>;
  /** Whether something was deleted. */
  delete(tenantId: string, id: string): Promise<boolean>;
  close(): Promise<void>;
}

/** How long stored responses live: OpenAI keeps them 30 days; a gateway cache needs far less. */
export const DEFAULT_RESPONSE_TTL_SECONDS = 7 * 24 * 3600;
