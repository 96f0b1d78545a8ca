import { z } from 'zod';

/** Tenant and key ids: what the config file allows for tenants, for keys too (they appear in metrics and Redis keys). */
export const entityId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[a-zA-Z0-9._-]+$/, 'letters, digits, dot, dash and underscore only');

const count = z.number().int().positive();

/** The limits of a tenant or key (each optional), as in the config file. */
export const limitSet = z.strictObject({
  rpm: count.optional(),
  tpm: count.optional(),
  concurrency: count.optional(),
  dailyTokens: count.optional(),
  monthlyTokens: count.optional(),
});

/** A JSON merge patch of limits: a number sets a limit, null removes it, absent keeps it. */
export const limitPatch = z.strictObject({
  rpm: count.nullable().optional(),
  tpm: count.nullable().optional(),
  concurrency: count.nullable().optional(),
  dailyTokens: count.nullable().optional(),
  monthlyTokens: count.nullable().optional(),
});

/** Public model names; `*` allows every model. */
const modelList = z.array(z.string().min(1)).max(10_000);

export const tenantParams = z.object({ tenantId: z.string() });
export const keyParams = z.object({ tenantId: z.string(), keyId: z.string() });

export const createTenantBody = z.strictObject({
  id: entityId,
  models: modelList.default(['*']),
  limits: limitSet.default({}),
});

export const updateTenantBody = z.strictObject({
  models: modelList.optional(),
  limits: limitPatch.optional(),
});

/** A missing body is an empty one: every field has a default. */
export const createKeyBody = z
  .strictObject({
    id: entityId.optional(),
    limits: limitSet.default({}),
    /** Narrows the tenant's allow-list for this key. */
    models: modelList.optional(),
  })
  .prefault({});

export const updateKeyBody = z.strictObject({
  limits: limitPatch.optional(),
  /** A list narrows the tenant's allow-list; null removes the override. */
  models: modelList.nullable().optional(),
});

export type CreateTenantInput = z.output<typeof createTenantBody>;
export type UpdateTenantInput = z.output<typeof updateTenantBody>;
export type CreateKeyInput = z.output<typeof createKeyBody>;
export type UpdateKeyInput = z.output<typeof updateKeyBody>;
export type LimitPatch = z.output<typeof limitPatch>;
