import type { FastifyPluginAsync } from 'fastify';
import { createKeyBody, keyParams, tenantParams, updateKeyBody } from './admin-schemas.ts';
import type { CatalogAdmin } from './catalog-admin.ts';
import type { ZodTypeProvider } from './zod-type-provider.ts';

/**
 * `/tenants/:tenantId/keys`: create (the plaintext is in this answer and nowhere else, ever),
 * list and read (never the key nor its hash), patch per-key limits and allow-list, rotate
 * (new plaintext once; the old key stops working), delete (revoke).
 */
export const keyRoutes: FastifyPluginAsync<{ admin: CatalogAdmin }> = async (instance, { admin }) => {
  const app = instance.withTypeProvider<ZodTypeProvider>();

  app.post('/tenants/:tenantId/keys', { schema: { params: tenantParams, body: createKeyBody } }, async (request, reply) => {
    return reply.code(201).send(await admin.createKey(request.params.tenantId, request.body));
  });

  app.get('/tenants/:tenantId/keys', { schema: { params: tenantParams } }, async (request) => ({ data: admin.listKeys(request.params.tenantId) }));

  app.get('/tenants/:tenantId/keys/:keyId', { schema: { params: keyParams } }, async (request) =>
    admin.getKey(request.params.tenantId, request.params.keyId),
  );

  app.patch('/tenants/:tenantId/keys/:keyId', { schema: { params: keyParams, body: updateKeyBody } }, async (request) =>
    admin.updateKey(request.params.tenantId, request.params.keyId, request.body),
  );

  app.post('/tenants/:tenantId/keys/:keyId/rotate', { schema: { params: keyParams } }, async (request) =>
    admin.rotateKey(request.params.tenantId, request.params.keyId),
  );

  app.delete('/tenants/:tenantId/keys/:keyId', { schema: { params: keyParams } }, async (request) =>
    admin.deleteKey(request.params.tenantId, request.params.keyId),
  );
};
