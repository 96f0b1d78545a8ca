import type { ServerResponse } from 'node:http';
import { GatewayError } from '@switchyard/canonical';
import { parseGenerateContentTarget, type Route } from '@switchyard/formats';
import type { RouteHandler } from '@switchyard/router-client';
import type { Metrics, Tracer } from '@switchyard/telemetry';
import type { ForwardedRequests } from '../forwarded-requests.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { forward } from '../forward.ts';
import type { IngressRouteConfig } from '../plugins/request-context.ts';

/** Every route whose answer comes from a router. The route is fixed by the path; bodies stay raw. */
export function registerForwardedRoutes(app: FastifyInstance, handler: RouteHandler<ServerResponse>, telemetry: { tracer: Tracer; metrics: Metrics; forwarded: ForwardedRequests }): void {
  const fixed = (config: IngressRouteConfig & { format: Route['format'] }) => ({
    config: { ingress: config },
    handler: (request: FastifyRequest, reply: FastifyReply) => forward(telemetry, handler, request, reply, { format: config.format, operation: config.operation }),
  });

  app.post('/v1/chat/completions', fixed({ format: 'chat-completions', operation: 'generate' }));
  app.post('/v1/embeddings', fixed({ format: 'chat-completions', operation: 'embeddings' }));
  app.post('/v1/responses', fixed({ format: 'responses', operation: 'generate' }));
  app.post('/v1/messages', fixed({ format: 'messages', operation: 'generate' }));
  app.post('/v1/messages/count_tokens', fixed({ format: 'messages', operation: 'count-tokens' }));

  const byId = (operation: 'response-get' | 'response-delete') => ({
    config: { ingress: { format: 'responses' as const, operation } },
    handler: (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) =>
      forward(telemetry, handler, request, reply, { format: 'responses', operation, resourceId: request.params.id }),
  });
  app.get('/v1/responses/:id', byId('response-get'));
  app.delete('/v1/responses/:id', byId('response-delete'));

  // `models/{model}:{method}` is one path segment (protocols.md §1.1), served under both API
  // versions because the current genai SDK defaults to v1.
  const generateContent = {
    config: { ingress: { format: 'generate-content' as const, operation: 'generate' as const } },
    handler: (request: FastifyRequest<{ Params: { target: string } }>, reply: FastifyReply) => {
      const route = parseGenerateContentTarget(request.params.target);
      if (route === undefined) {
        throw new GatewayError('not_found', `Unknown method in models/${request.params.target}.`);
      }
      return forward(telemetry, handler, request, reply, route);
    },
  };
  app.post('/v1beta/models/:target', generateContent);
  app.post('/v1/models/:target', generateContent);
}
