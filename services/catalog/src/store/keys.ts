/**
 * The one place catalog Redis key names are built. The scheme:
 *
 *   sy:{catalog}:version   string   the catalog version: INCR on every change, served as
 *                                   `CatalogSnapshot.version`; created from the server clock
 *                                   (ms) when missing, so a flushed or new Redis never hands
 *                                   out a number a client already holds for other content
 *   sy:{catalog}:config    string   SHA-256 of the config file last announced by a replica;
 *                                   a replica whose own file differs stops serving (stale)
 *   sy:{catalog}:tenants   hash     <tenant id> → JSON StoredTenant (runtime-created tenants)
 *   sy:{catalog}:keys      hash     <tenant id>/<key id> → JSON StoredKey (SHA-256 only, never
 *                                   the key): runtime keys, on runtime or config tenants
 *   sy:{catalog}:changes   channel  PUBLISH <version> after every change (classic pub/sub)
 *
 * - Every key carries the hash tag `{catalog}`: they share one Redis Cluster slot, so one
 *   script can change an entity and bump the version atomically, and one MULTI reads the
 *   version with the state it belongs to. The catalog is small (tenants and keys), so one
 *   slot is no hot spot: it changes on admin calls, not on requests.
 * - Ids are URI-encoded in hash fields: `/` separates tenant and key and cannot appear inside
 *   an encoded id. (The admin API only accepts letters, digits, `.`, `_` and `-` anyway.)
 * - Nothing expires: this is the source of truth for runtime changes, not a cache.
 */
export const CATALOG_KEYS = {
  version: 'sy:{catalog}:version',
  config: 'sy:{catalog}:config',
  tenants: 'sy:{catalog}:tenants',
  keys: 'sy:{catalog}:keys',
} as const;

export const CATALOG_CHANGES_CHANNEL = 'sy:{catalog}:changes';

/** The field of a tenant in the tenants hash. */
export function tenantField(tenantId: string): string {
  return encodeURIComponent(tenantId);
}

/** The field of a key in the keys hash: `<tenant>/<key>`. */
export function keyField(tenantId: string, keyId: string): string {
  return `${encodeURIComponent(tenantId)}/${encodeURIComponent(keyId)}`;
}

/** The prefix shared by the fields of every key of one tenant. */
export function tenantKeysPrefix(tenantId: string): string {
  return `${encodeURIComponent(tenantId)}/`;
}
