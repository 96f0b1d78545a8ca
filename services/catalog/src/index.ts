export * from './app.ts';
export * from './create-catalog-service.ts';
export { ADMIN_PREFIX } from './admin/admin-plugin.ts';
export { AdminError } from './admin/admin-error.ts';
export type { CatalogAdmin, EntitySource, IssuedKey, KeyView, TenantView } from './admin/catalog-admin.ts';
export type { CatalogLogger } from './logger.ts';
