import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { CatalogLogger } from '../logger.ts';
import { AdminError } from './admin-error.ts';
import type { CatalogAdmin } from './catalog-admin.ts';
import { keyRoutes } from './key-routes.ts';
import { createAdminErrorHandler } from './render-admin-error.ts';
import { tenantRoutes } from './tenant-routes.ts';
import { zodValidatorCompiler } from './zod-type-provider.ts';

export const ADMIN_PREFIX = '/admin/v1';

/** Admin bodies are small JSON documents; the public body limit (32 MiB) is not theirs. */
const ADMIN_BODY_LIMIT = 1024 * 1024;

export interface AdminPluginOptions {
  admin: CatalogAdmin;
  /** The bearer token; without one the admin API answers 404 `admin_disabled`. */
  token: string | undefined;
  logger: CatalogLogger;
  /** More routes under /admin/v1 (usage, issue 6), behind the same token, parser and error format. */
  routes?: FastifyPluginAsync[];
}

/**
 * The admin REST API under /admin/v1, one encapsulated scope: its own JSON parser (so it also
 * works inside the ingress app, which reads every body raw), zod validation, bearer
 * authentication before anything else, one error handler and a JSON 404.
 */
export function createAdminPlugin(options: AdminPluginOptions): FastifyPluginAsync {
  const expected = options.token === undefined || options.token === '' ? undefined : digest(options.token);
  return async (app) => {
    await app.register(
      async (scope) => {
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: ADMIN_BODY_LIMIT }, scope.getDefaultJsonParser('error', 'error'));
        scope.setValidatorCompiler(zodValidatorCompiler);
        scope.setErrorHandler(createAdminErrorHandler(options.logger));
        scope.setNotFoundHandler(async (request) => {
          throw new AdminError(404, 'not_found', `No admin route for ${request.method} ${request.url.split('?')[0] ?? ''}.`);
        });
        scope.addHook('onRequest', async (request) => authenticate(request, expected));
        // Plaintext keys appear in some answers: no cache may keep any of them.
        scope.addHook('onSend', async (_request, reply, payload) => {
          void reply.header('cache-control', 'no-store');
          return payload;
        });
        await scope.register(tenantRoutes, { admin: options.admin });
        await scope.register(keyRoutes, { admin: options.admin });
        for (const routes of options.routes ?? []) await scope.register(routes);
      },
      { prefix: ADMIN_PREFIX },
    );
  };
}

function authenticate(request: FastifyRequest, expected: Buffer | undefined): void {
  if (expected === undefined) {
    throw new AdminError(404, 'admin_disabled', 'The admin API is disabled: set SWITCHYARD_ADMIN_TOKEN to enable it.');
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  // Digests have one length, so the comparison takes the same time whatever was sent.
  if (match?.[1] === undefined || !timingSafeEqual(digest(match[1]), expected)) {
    throw new AdminError(401, 'invalid_admin_token', 'Missing or invalid admin token.');
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
