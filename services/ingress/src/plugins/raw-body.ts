import type { FastifyInstance } from 'fastify';

/**
 * Ingress never parses bodies: every content type is read as a Buffer and forwarded as is.
 * fastify still enforces the body limit, which the error handler turns into a 413.
 *
 * JSON, what every client format sends, is named besides the catch-all: fastify caches the
 * parser found for a content type, but not the catch-all, which would parse the content-type
 * header again on every request.
 */
export function registerRawBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  for (const type of ['application/json', '*']) app.addContentTypeParser(type, { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
}
