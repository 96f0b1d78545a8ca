import type { FormatId } from '@switchyard/canonical';
import type { Principal } from '@switchyard/catalog-client';
import type { Operation } from '@switchyard/formats';

/** Route-level policy, attached as fastify route config. */
export interface IngressRouteConfig {
  /** The client's format, or `by-headers` for `GET /v1/models` (protocols.md §8). */
  format: FormatId | 'by-headers';
  operation: Operation;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The format errors are rendered in; set before anything can fail. */
    clientFormat: FormatId;
    principal: Principal | undefined;
    /** The `?key=` value, removed from the query before anything else sees it. */
    queryKey: string | undefined;
  }
  interface FastifyContextConfig {
    ingress?: IngressRouteConfig;
  }
}
