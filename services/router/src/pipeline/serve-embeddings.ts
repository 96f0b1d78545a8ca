import { GatewayError } from '@switchyard/canonical';
import type { CatalogIndex } from '@switchyard/catalog-client';
import { wireFormats, type AnswerWriter } from '@switchyard/formats';
import type { UpstreamClient, UpstreamEndpoint } from '@switchyard/providers';
import type { RouteRequest } from '@switchyard/router-client';
import { callUpstream, parseAnswerBody, readErrorBody, type UpstreamTimeouts } from './call-upstream.ts';
import type { ExchangeOutcome } from './exchange.ts';
import { parseJsonBody } from './parse-json-body.ts';
import { authoriseModel } from './prepare-exchange.ts';
import { chooseDeployment } from '../routing/choose-deployment.ts';
import type { DeploymentHealth } from '../routing/deployment-health.ts';

/**
 * Embeddings between the two embedding shapes (OpenAI `/v1/embeddings` and generate-content
 * `:embedContent` / `:batchEmbedContents`), always through the canonical form: vectors are
 * re-encoded anyway when the client wants base64.
 */
export async function serveEmbeddings(
  dependencies: { upstream: UpstreamClient; timeouts: UpstreamTimeouts; health: DeploymentHealth },
  request: RouteRequest,
  index: CatalogIndex,
  endpointOf: (providerId: string) => UpstreamEndpoint,
  response: AnswerWriter,
  settle: (outcome: ExchangeOutcome) => Promise<void>,
): Promise<ExchangeOutcome> {
  const clientFormat = wireFormats[request.route.format];
  const clientEmbeddings = clientFormat.embeddings;
  if (clientEmbeddings === undefined) throw new GatewayError('not_found', 'This format has no embeddings endpoint.');
  const context = request.route.model === undefined ? {} : { model: request.route.model, ...(request.route.method === undefined ? {} : { operation: request.route.method }) };
  const canonical = clientEmbeddings.toCanonical(parseJsonBody(request.body), context);
  const { model } = authoriseModel(request, index, canonical.model);
  const deployment = chooseDeployment(model, dependencies.health, new Set());
  if (deployment === undefined) {
    throw new GatewayError('unavailable', `No deployment of '${model.name}' is available right now.`, { retryAfterSeconds: 1 });
  }
  const endpoint = endpointOf(deployment.provider);
  const upstreamFormat = wireFormats[endpoint.protocol];
  const upstreamEmbeddings = upstreamFormat.embeddings;
  if (upstreamEmbeddings === undefined) {
    throw new GatewayError('invalid_request', `The model '${canonical.model}' does not serve embeddings.`, { param: 'model' });
  }
  const encoded = upstreamEmbeddings.fromCanonical(canonical, { model: deployment.model });
  const upstream = await callUpstream({
    client: dependencies.upstream,
    endpoint,
    format: upstreamFormat,
    path: encoded.path,
    body: JSON.stringify(encoded.body),
    extraHeaders: {},
    signal: request.signal,
    timeouts: dependencies.timeouts,
  });
  if (upstream.statusCode >= 400) throw upstreamFormat.errors.fromUpstream(upstream.statusCode, await readErrorBody(upstream));
  const answer = upstreamEmbeddings.responseToCanonical(parseAnswerBody(await upstream.body.text()), canonical);
  const body = JSON.stringify(clientEmbeddings.responseFromCanonical({ ...answer, model: canonical.model }, canonical));
  const outcome: ExchangeOutcome = { status: 200, usage: answer.usage, model: canonical.model };
  await settle(outcome);
  response.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': request.identity.requestId,
  });
  response.end(body);
  return outcome;
}
