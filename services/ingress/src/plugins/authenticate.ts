import { GatewayError } from '@switchyard/canonical';
import type { CatalogSource } from '@switchyard/catalog-client';
import { detectModelListFormat, extractApiKey, messagesVersion } from '@switchyard/formats';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Sets the client's format and authenticates before the body is read, so unauthenticated
 * uploads are refused without buffering them. `?key=` is taken out of the query here and
 * nowhere else, so it cannot reach a log line or the router.
 */
export function registerAuthenticate(app: FastifyInstance, catalog: CatalogSource): void {
  app.decorateRequest('clientFormat', 'chat-completions');
  app.decorateRequest('principal', undefined);
  app.decorateRequest('queryKey', undefined);

  // A callback hook, not an async one: nothing here waits, and fastify would chain a promise and
  // a turn of the microtask queue to every request for it. A throw reaches the error handler as
  // a rejection would.
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    const config = request.routeOptions.config.ingress;
    if (config === undefined) {
      done();
      return;
    }
    const query = request.query as Record<string, string | undefined>;
    request.queryKey = query.key;
    delete query.key;
    request.clientFormat = config.format === 'by-headers' ? detectModelListFormat(request.headers, request.queryKey !== undefined) : config.format;
    if (request.clientFormat === 'messages' && config.operation !== 'models-list' && config.operation !== 'models-get' && messagesVersion(request.headers) === undefined) {
      throw new GatewayError('invalid_request', 'The vendora-version header is required (anthropic-version is accepted too).', {
        param: 'vendora-version',
      });
    }
    const key = extractApiKey(request.clientFormat, request.headers, request.queryKey);
    if (key === undefined || key === '') {
      throw new GatewayError('authentication', 'Missing API key.', { code: 'invalid_api_key' });
    }
    const principal = catalog.current().authenticate(key);
    if (principal === undefined) {
      throw new GatewayError('authentication', 'Invalid API key.', { code: 'invalid_api_key' });
    }
    request.principal = principal;
    done();
  });
}
