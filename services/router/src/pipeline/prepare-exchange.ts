import { GatewayError, type CanonicalRequest } from '@switchyard/canonical';
import type { CatalogIndex, DeploymentRecord, KeyRecord, ModelRecord, TenantRecord } from '@switchyard/catalog-client';
import { wireFormats, type WireFormat } from '@switchyard/formats';
import type { UpstreamEndpoint } from '@switchyard/providers';
import type { RouteRequest } from '@switchyard/router-client';
import type { ResponseStore, SignatureStore } from '../responses-store/index.ts';
import type { Exchange } from './exchange.ts';
import { parseJsonBody } from './parse-json-body.ts';
import { expandPreviousResponse } from './responses-state.ts';
import { restoreCallSignatures, unsignedCallIds } from './signature-continuity.ts';

/** A decoded, authorised request, before any deployment is chosen. */
export interface PreparedRequest {
  request: RouteRequest;
  clientFormat: WireFormat;
  canonical: CanonicalRequest;
  /** The client's JSON body, for the same-format path. */
  clientBody: Record<string, unknown>;
  model: ModelRecord;
  tenant: TenantRecord;
  key: KeyRecord | undefined;
  /** Switchyard added stored history: the client's body no longer says everything. */
  expanded: boolean;
}

/**
 * Decode → authorise the model → add stored history. Validation runs for every request,
 * same-format ones included, so bounds are enforced whatever the upstream.
 */
export async function prepareRequest(
  request: RouteRequest,
  index: CatalogIndex,
  responseStore: ResponseStore,
  signatureStore: SignatureStore,
): Promise<PreparedRequest> {
  const clientFormat = wireFormats[request.route.format];
  const body = parseJsonBody(request.body);
  const context = request.route.model === undefined ? {} : { model: request.route.model, stream: request.route.stream === true };
  const canonical = clientFormat.request.toCanonical(body, context);
  const { model, tenant, key } = authoriseModel(request, index, canonical.model);
  // Both stores are asked only when the request needs them: an await costs every request a turn of the microtask queue.
  const expanded = canonical.previousResponseId !== undefined && (await expandPreviousResponse(responseStore, request.identity.tenantId, canonical));
  const unsigned = unsignedCallIds(canonical.messages);
  if (unsigned.length > 0) canonical.messages = await restoreCallSignatures(signatureStore, request.identity.tenantId, canonical.messages, unsigned);
  return { request, clientFormat, canonical, clientBody: body as Record<string, unknown>, model, tenant, key, expanded };
}

/** The exchange for one attempt against one deployment (of the model asked for, or a fallback). */
export function bindExchange(prepared: PreparedRequest, model: ModelRecord, deployment: DeploymentRecord, endpoint: UpstreamEndpoint): Exchange {
  const { request, clientFormat, canonical } = prepared;
  const upstreamFormat = wireFormats[endpoint.protocol];
  const sameFormat = upstreamFormat === clientFormat && !prepared.expanded;
  if (!sameFormat && (canonical.n ?? 1) > 1) {
    throw new GatewayError('invalid_request', 'n > 1 is only supported when the model is served in the same format as the request.', {
      param: clientFormat.id === 'generate-content' ? 'generationConfig.candidateCount' : 'n',
    });
  }
  return {
    request,
    clientFormat,
    upstreamFormat,
    sameFormat,
    canonical,
    deployment,
    endpoint,
    maxOutputTokens: model.maxOutputTokens,
    timeouts: model.timeouts,
    warnings: [],
    // Translated Responses answers are named by Switchyard, which keeps them for previous_response_id.
    answerId: clientFormat.id === 'responses' && !sameFormat ? `resp_${request.identity.requestId.replace(/^req_/, '')}` : undefined,
  };
}

/** The catalog model for a public name, if it exists and this tenant and key may use it. */
export function authoriseModel(request: RouteRequest, index: CatalogIndex, name: string): { model: ModelRecord; tenant: TenantRecord; key: KeyRecord | undefined } {
  const model = index.model(name);
  const tenant = index.tenant(request.identity.tenantId);
  const key = index.keyOf(request.identity.tenantId, request.identity.keyId);
  // A model the tenant may not use is reported exactly like one that does not exist: no
  // tenant learns another tenant's catalog.
  if (model === undefined || tenant === undefined || !index.allows(tenant, key, name)) {
    throw new GatewayError('not_found', `The model '${name}' does not exist or you do not have access to it.`, {
      param: 'model',
      code: 'model_not_found',
    });
  }
  return { model, tenant, key };
}
