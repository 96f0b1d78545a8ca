import type { FastifySchemaCompiler, FastifyTypeProvider } from 'fastify';
import type { z } from 'zod';

/**
 * Route schemas are zod schemas: fastify validates with them (`zodValidatorCompiler`) and
 * types `request.body` / `request.params` from them (`withTypeProvider<ZodTypeProvider>()`),
 * the way fastify-type-provider-zod does, in a dozen lines.
 */
export interface ZodTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends z.ZodType ? z.output<this['schema']> : unknown;
  serializer: this['schema'] extends z.ZodType ? z.input<this['schema']> : unknown;
}

/** A failed parse becomes fastify's validation error (400), carrying the ZodError. fastify passes null for a missing body. */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema }) =>
  (data) => {
    const result = schema.safeParse(data ?? undefined);
    return result.success ? { value: result.data } : { error: result.error };
  };
