/**
 * The one place usage key names and hash fields are built. The scheme:
 *
 *   sy:{t:<tenant>}:usage:req:<requestId>   string "1"   the request was counted; expires after
 *                                                        the marker TTL (default 8 days, never < 7)
 *   sy:{t:<tenant>}:usage:day:<YYYY-MM-DD>  hash         aggregates of one UTC day; expires
 *                                                        `days` of retention after the day ends
 *   sy:{t:<tenant>}:usage:month:<YYYY-MM>   hash         aggregates of one UTC month; expires
 *                                                        `months` of retention after the month ends
 *
 * Fields of both hashes: `<key>:<model>:<metric>` → integer, metric as in METRIC_FIELDS
 * (`requests`, `errors`, `streams`, `input`, `output`, `cached`, `reasoning`, `cost`). A
 * metric that stayed 0 has no field.
 *
 * - Every key of a tenant carries the hash tag `{t:<tenant>}`: the marker and both hashes share
 *   a Redis Cluster slot, so one script checks the marker and counts atomically
 *   (lua/record-usage-n.lua).
 * - `<tenant>`, `<key>`, `<model>` and `<requestId>` are URI-encoded, which escapes `{`, `}`
 *   and `:`: no id can move the hash tag or pass for another id's field.
 * - One hash per tenant and period (not per key and model) so a query reads one hash per day
 *   or month, with no index to maintain. Its size is keys × models × metrics in use.
 * - Markers cost one small key per request for the TTL: about 100 bytes each, so 1 M requests a
 *   day hold about 0.8 GB. The queue shares this Redis (noeviction, style-anchors §5): size it.
 * The memory aggregator uses the same names for its maps.
 */

function tenantPrefix(tenantId: string): string {
  return `sy:{t:${encodeURIComponent(tenantId)}}:usage`;
}

/** The "already counted" marker of one request. */
export function requestMarkerKey(tenantId: string, requestId: string): string {
  return `${tenantPrefix(tenantId)}:req:${encodeURIComponent(requestId)}`;
}

/** The hash of one UTC day (`YYYY-MM-DD`) or month (`YYYY-MM`). */
export function aggregateKey(tenantId: string, granularity: 'day' | 'month', period: string): string {
  return `${tenantPrefix(tenantId)}:${granularity}:${period}`;
}

/** The field prefix of one API key and model inside an aggregate hash; the metric name follows. */
export function aggregateFieldPrefix(keyId: string, model: string): string {
  return `${encodeURIComponent(keyId)}:${encodeURIComponent(model)}:`;
}

/** The parts of a field, or undefined for a field this scheme did not write. */
export function parseAggregateField(field: string): { keyId: string; model: string; metric: string } | undefined {
  const parts = field.split(':');
  if (parts.length !== 3) return undefined;
  const [keyId, model, metric] = parts as [string, string, string];
  try {
    return { keyId: decodeURIComponent(keyId), model: decodeURIComponent(model), metric };
  } catch {
    return undefined;
  }
}
