import { GatewayError } from '@switchyard/canonical';
import type { CatalogSource } from '@switchyard/catalog-client';
import { wireFormats } from '@switchyard/formats';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Model listings are answered by ingress from its catalog copy: no router hop, and only the
 * models this tenant and key may use (an empty list is a valid answer).
 */
export function registerModelRoutes(app: FastifyInstance, catalog: CatalogSource): void {
  const visible = (request: FastifyRequest) => {
    const principal = request.principal;
    if (principal === undefined) throw new GatewayError('authentication', 'Missing API key.');
    return catalog
      .current()
      .visibleModels(principal.tenant, principal.key)
      .map((model) => model.info);
  };
  const list = async (request: FastifyRequest) =>
    wireFormats[request.clientFormat].models.renderList(visible(request), request.query as Record<string, string | undefined>);
  const one = async (request: FastifyRequest<{ Params: { model: string } }>) => {
    // generate-content names models `models/{id}`; the others use the bare id.
    const id = request.params.model.replace(/^models\//, '');
    const model = visible(request).find((info) => info.id === id);
    if (model === undefined) {
      throw new GatewayError('not_found', `The model '${id}' does not exist or you do not have access to it.`, {
        param: 'model',
        code: 'model_not_found',
      });
    }
    return wireFormats[request.clientFormat].models.renderOne(model);
  };

  app.get('/v1/models', { config: { ingress: { format: 'by-headers', operation: 'models-list' } } }, list);
  app.get('/v1/models/:model', { config: { ingress: { format: 'by-headers', operation: 'models-get' } } }, one);
  app.get('/v1beta/models', { config: { ingress: { format: 'generate-content', operation: 'models-list' } } }, list);
  app.get('/v1beta/models/:model', { config: { ingress: { format: 'generate-content', operation: 'models-get' } } }, one);
}
