import type { CanonicalRequest } from '@switchyard/canonical';
import { zodErrorToGatewayError } from '../shared/index.ts';
import type { RequestContext } from '../wire-format.ts';
import { convertRequestToCanonical } from './request.ts';
import { countTokensRequestSchema } from './schema.ts';

/** `POST /v1/messages/count_tokens`: the messages body without `max_tokens`/`stream` (protocols.md §9). */
export function countTokensToCanonical(body: unknown, context: RequestContext): CanonicalRequest {
  const parsed = countTokensRequestSchema.safeParse(body);
  if (!parsed.success) throw zodErrorToGatewayError(parsed.error);
  return convertRequestToCanonical(parsed.data, context);
}

export function renderCountTokens(inputTokens: number): unknown {
  return { input_tokens: inputTokens };
}
