import type { FastifyPluginAsync } from 'fastify';
import { createTenantBody, tenantParams, updateTenantBody } from './admin-schemas.ts';
import type { CatalogAdmin } from './catalog-admin.ts';
import type { ZodTypeProvider } from './zod-type-provider.ts';

/** `/tenants`: list, read, create, patch (JSON merge patch of limits), delete (revokes its keys). */
export const tenantRoutes: FastifyPluginAsync<{ admin: CatalogAdmin }> = async (instance, { admin }) => {
  const app = instance.withTypeProvider<ZodTypeProvider>();

  app.get('/tenants', async () => ({ data: admin.listTenants() }));

  app.get('/tenants/:tenantId', { schema: { params: tenantParams } }, async (request) => admin.getTenant(request.params.tenantId));

  app.post('/tenants', { schema: { body: createTenantBody } }, async (request, reply) => {
    return reply.code(201).send(await admin.createTenant(request.body));
  });

  app.patch('/tenants/:tenantId', { schema: { params: tenantParams, body: updateTenantBody } }, async (request) =>
    admin.updateTenant(request.params.tenantId, request.body),
  );

  app.delete('/tenants/:tenantId', { schema: { params: tenantParams } }, async (request) => admin.deleteTenant(request.params.tenantId));
};
