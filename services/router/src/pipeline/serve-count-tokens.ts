import { GatewayError } from '@switchyard/canonical';
import type { CatalogIndex } from '@switchyard/catalog-client';
import { wireFormats, type AnswerWriter } from '@switchyard/formats';
import type { RouteRequest } from '@switchyard/router-client';
import { estimateRequestTokens } from './estimate-tokens.ts';
import type { ExchangeOutcome } from './exchange.ts';
import { parseJsonBody } from './parse-json-body.ts';
import { authoriseModel } from './prepare-exchange.ts';

/**
 * messages `count_tokens` and generate-content `:countTokens`, counted locally with the
 * tokenizer whatever the upstream: no upstream call, no cost, the same answer for a model
 * served by any vendor (docs/translation.md says why).
 */
export async function serveCountTokens(request: RouteRequest, index: CatalogIndex, response: AnswerWriter): Promise<ExchangeOutcome> {
  const format = wireFormats[request.route.format];
  if (format.countTokens === undefined) throw new GatewayError('not_found', 'This format has no token-count endpoint.');
  const context = request.route.model === undefined ? {} : { model: request.route.model };
  const canonical = format.countTokens.toCanonical(parseJsonBody(request.body), context);
  authoriseModel(request, index, canonical.model);
  const body = JSON.stringify(format.countTokens.render(await estimateRequestTokens(canonical)));
  response.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': request.identity.requestId,
  });
  response.end(body);
  return { status: 200, usage: { inputTokens: 0, outputTokens: 0 } };
}
