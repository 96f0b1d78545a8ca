/**
 * The one place rate-limit key names are built. The scheme:
 *
 *   sy:{t:<tenant>}:rpm                   hash {<slot>: count…, t, o, n}   requests window (sliding-window.ts)
 *   sy:{t:<tenant>}:tpm                   hash {<slot>: count…, t, o, n}   tokens window
 *   sy:{t:<tenant>}:conc                  zset requestId → lease expiry (ms)
 *   sy:{t:<tenant>}:budget                hash {day, dayUsed, month, monthUsed}
 *   sy:{t:<tenant>}:k:<key>:rpm|tpm|conc|budget   the same four for each API key of the tenant
 *
 * - Every key of a tenant, its keys' included, carries the hash tag `{t:<tenant>}`, so they
 *   share a Redis Cluster slot and one script can check and charge all of them atomically.
 * - `<tenant>` and `<key>` are URI-encoded: an id containing `{`, `}` or `:` can neither move
 *   the hash tag nor collide with another id's keys.
 * - Budget counters carry the UTC day and month they count inside the hash rather than in the
 *   key name: the period comes from the server's clock, known only inside the script, and a
 *   script may only touch keys it was given (Cluster rule). A counter of an older period reads
 *   as 0 and is overwritten.
 * - A window holds one field per 1 s slot still counted (at most 61) and their sum, oldest and
 *   newest (lua/includes/sliding-window.lua). The names are those of the GCRA buckets they
 *   replace; the window ignores the buckets' leftover `level` and `at` fields.
 * - Windows expire once their newest slot has left, concurrency sets one lease after their last
 *   admission, budget hashes after their month (each plus EXPIRY_MARGIN_MS): an idle tenant
 *   leaves nothing behind.
 * The memory limiter uses the same names for its maps.
 */
export interface ScopeKeys {
  requests: string;
  tokens: string;
  concurrency: string;
  budget: string;
}

/**
 * Names are asked for on every admission, release and reconcile, for the same few tenants and
 * keys: kept rather than rebuilt (eight strings a request). Ids come from the catalog, so the
 * caches are as large as it; starting over past the bound keeps churning ids from growing them.
 */
const MAX_CACHED_TENANTS = 10_000;
const tenantKeys = new Map<string, ScopeKeys>();
/** tenant id → key id → names. */
const apiKeyKeys = new Map<string, Map<string, ScopeKeys>>();

export function tenantScopeKeys(tenantId: string): ScopeKeys {
  return tenantKeys.get(tenantId) ?? remember(tenantKeys, tenantId, scopeKeys(`${tenantPrefix(tenantId)}:`));
}

export function keyScopeKeys(tenantId: string, keyId: string): ScopeKeys {
  const ofTenant = apiKeyKeys.get(tenantId) ?? remember(apiKeyKeys, tenantId, new Map<string, ScopeKeys>());
  return ofTenant.get(keyId) ?? remember(ofTenant, keyId, scopeKeys(`${tenantPrefix(tenantId)}:k:${encodeURIComponent(keyId)}:`));
}

/** Keeps `value` under `id`, starting the cache over once it holds the bound. */
function remember<V>(cache: Map<string, V>, id: string, value: V): V {
  if (cache.size >= MAX_CACHED_TENANTS) cache.clear();
  cache.set(id, value);
  return value;
}

function tenantPrefix(tenantId: string): string {
  return `sy:{t:${encodeURIComponent(tenantId)}}`;
}

function scopeKeys(prefix: string): ScopeKeys {
  // Shared between callers: frozen so that none can rename another's keys.
  return Object.freeze({
    requests: `${prefix}rpm`,
    tokens: `${prefix}tpm`,
    concurrency: `${prefix}conc`,
    budget: `${prefix}budget`,
  });
}
