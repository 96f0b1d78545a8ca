import { GatewayError } from '@switchyard/canonical';
import type { CanonicalResponse } from '@switchyard/canonical';
import type { ResponseContext } from '../wire-format.ts';
import { buildResponseObject, responseIdFor, type ResponseObject } from './build-response-object.ts';
import { outputItemsFromCanonical, outputItemsToCanonical } from './convert-output-items.ts';
import { usageFromCanonical, usageToCanonical } from './convert-usage.ts';
import { mapFinishReasonToOutcome, mapStatusToFinishReason } from './map-status.ts';
import { errorFromCode } from './map-error-code.ts';
import { responseSchema } from './response-schema.ts';

/** An upstream's response object → canonical answer (protocols.md §4.2). */
export function responseToCanonical(body: unknown): CanonicalResponse {
  const result = responseSchema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue === undefined ? '' : ` at ${issue.path.join('.')}: ${issue.message}`;
    throw new GatewayError('upstream_error', `The upstream sent a malformed Responses answer${where}`);
  }
  const response = result.data;
  // A failed response arrives with HTTP 200; it is an error for the client, not an empty answer.
  if (response.status === 'failed') throw errorFromCode(response.error?.code, response.error?.message);
  const output = response.output ?? [];
  return {
    id: response.id,
    model: response.model ?? '',
    created: response.created_at ?? Math.floor(Date.now() / 1000),
    content: outputItemsToCanonical(output),
    finishReason: mapStatusToFinishReason(
      response.status ?? undefined,
      response.incomplete_details?.reason ?? undefined,
      output.some((item) => item.type === 'function_call'),
    ),
    usage: usageToCanonical(response.usage),
  };
}

export function responseFromCanonical(response: CanonicalResponse, context: ResponseContext): ResponseObject {
  const id = responseIdFor(response.id);
  const outcome = mapFinishReasonToOutcome(response.finishReason);
  return buildResponseObject({
    id,
    createdAt: response.created,
    model: context.model,
    status: outcome.status,
    incompleteDetails: outcome.incompleteDetails,
    output: outputItemsFromCanonical(response.content, id),
    usage: usageFromCanonical(response.usage),
  });
}
