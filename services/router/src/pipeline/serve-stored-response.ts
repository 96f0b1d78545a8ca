import type { AnswerWriter } from '@switchyard/formats';
import { GatewayError } from '@switchyard/canonical';
import type { RouteRequest } from '@switchyard/router-client';
import type { ResponseStore } from '../responses-store/index.ts';
import type { ExchangeOutcome } from './exchange.ts';

/** `GET /v1/responses/{id}` and `DELETE /v1/responses/{id}`, only ever within the caller's tenant. */
export async function serveStoredResponse(store: ResponseStore, request: RouteRequest, response: AnswerWriter): Promise<ExchangeOutcome> {
  const id = request.route.resourceId ?? '';
  const tenantId = request.identity.tenantId;
  let body: string;
  if (request.route.operation === 'response-delete') {
    if (!(await store.delete(tenantId, id))) throw notFound(id);
    body = JSON.stringify({ id, object: 'response', deleted: true });
  } else {
    const stored = await store.load(tenantId, id);
    if (stored === undefined) throw notFound(id);
    body = stored.body;
  }
  response.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': request.identity.requestId,
  });
  response.end(body);
  return { status: 200, usage: { inputTokens: 0, outputTokens: 0 } };
}

function notFound(id: string): GatewayError {
  return new GatewayError('not_found', `Response with id '${id}' not found.`, { param: 'response_id' });
}
