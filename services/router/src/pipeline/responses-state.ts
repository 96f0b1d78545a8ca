import { GatewayError, type CanonicalRequest, type CanonicalResponse } from '@switchyard/canonical';
import type { ResponseStore } from '../responses-store/index.ts';
import type { Exchange } from './exchange.ts';
import { clientResponseContext } from './response-context.ts';

/**
 * `previous_response_id` against any upstream (design §3): the stored conversation is put in
 * front of the new input, so the upstream sees the whole history whatever API it speaks.
 * Returns whether history was added — the body the client sent can then no longer go up as is.
 */
export async function expandPreviousResponse(store: ResponseStore, tenantId: string, canonical: CanonicalRequest): Promise<boolean> {
  const id = canonical.previousResponseId;
  if (id === undefined) return false;
  const stored = await store.load(tenantId, id);
  if (stored === undefined) {
    throw new GatewayError('invalid_request', `Previous response with id '${id}' not found.`, {
      param: 'previous_response_id',
      code: 'previous_response_not_found',
    });
  }
  // This request's own instructions lead; the earlier turns follow, then the new input.
  const leading = canonical.messages.findIndex((message) => message.role !== 'system' && message.role !== 'developer');
  const split = leading === -1 ? canonical.messages.length : leading;
  canonical.messages = [...canonical.messages.slice(0, split), ...stored.conversation, ...canonical.messages.slice(split)];
  delete canonical.previousResponseId;
  return true;
}

/**
 * Whether the router keeps this exchange's answer: a Responses client that did not say
 * `store: false`. Such an answer must be decoded whole, even where it is relayed untouched.
 */
export function keepsResponse(exchange: Exchange): boolean {
  return exchange.clientFormat.id === 'responses' && exchange.canonical.store !== false;
}

/**
 * Keeps an answered Responses exchange unless the client said `store: false`. System and
 * developer messages are not kept: like OpenAI's `instructions`, they apply to one request.
 */
export async function rememberResponse(store: ResponseStore, exchange: Exchange, answer: CanonicalResponse): Promise<void> {
  const { canonical, clientFormat, request } = exchange;
  if (!keepsResponse(exchange)) return;
  const id = exchange.answerId ?? answer.id;
  const rendered = clientFormat.response.fromCanonical({ ...answer, id }, clientResponseContext(exchange));
  await store.save({
    id,
    tenantId: request.identity.tenantId,
    conversation: [
      ...canonical.messages.filter((message) => message.role !== 'system' && message.role !== 'developer'),
      { role: 'assistant', content: answer.content },
    ],
    body: JSON.stringify(rendered),
  });
}
