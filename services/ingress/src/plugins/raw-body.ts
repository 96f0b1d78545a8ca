import type { FastifyInstance } from 'fastify';

/**
 * Ingress never parses bodies: every content type is read as a Buffer and forwarded as is.
 * fastify still enforces the body limit, which the error handler turns into a 413.
 */
export function registerRawBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
}
