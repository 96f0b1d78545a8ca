import type { ResponseContext } from '@switchyard/formats';
import type { Exchange } from './exchange.ts';

/**
 * What the client's answer is rendered with, the same for JSON answers and streams: the model
 * it asked for, and whether it wants usage chunks and reasoning text (asked for in its own
 * format — `includeThoughts`, thinking, a Responses summary — or, for chat clients, with the
 * `x-switchyard-include-reasoning: true` header).
 */
export function clientResponseContext(exchange: Exchange): ResponseContext {
  const { canonical, request } = exchange;
  return {
    model: canonical.model,
    requestId: request.identity.requestId,
    includeUsage: canonical.includeUsage === true,
    includeReasoning: request.headers['x-switchyard-include-reasoning'] === 'true' || canonical.reasoning?.includeThoughts === true,
  };
}
