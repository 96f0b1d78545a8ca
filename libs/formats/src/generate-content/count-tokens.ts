import { GatewayError, type CanonicalRequest } from '@switchyard/canonical';
import { zodErrorToGatewayError } from '../shared/index.ts';
import type { RequestContext } from '../wire-format.ts';
import { decodeRequest } from './request.ts';
import { countTokensRequestSchema } from './schema.ts';

/**
 * `:countTokens` (protocols.md §9): `{contents}` or `{generateContentRequest: {...}}`, which are
 * mutually exclusive. Either way the answer counts the prompt a generate call would send.
 */
export function countTokensToCanonical(body: unknown, context: RequestContext): CanonicalRequest {
  const parsed = countTokensRequestSchema.safeParse(body);
  if (!parsed.success) throw zodErrorToGatewayError(parsed.error);
  const { contents, generateContentRequest } = parsed.data;
  if (contents != null && generateContentRequest != null) {
    throw new GatewayError('invalid_request', 'Send either contents or generateContentRequest, not both.', { param: 'generateContentRequest' });
  }
  const request = generateContentRequest ?? (contents == null ? undefined : { contents });
  if (request === undefined) throw new GatewayError('invalid_request', 'contents is required.', { param: 'contents' });
  return decodeRequest(request, { ...context, stream: false });
}

export function renderCountTokens(inputTokens: number): unknown {
  return { totalTokens: inputTokens };
}
