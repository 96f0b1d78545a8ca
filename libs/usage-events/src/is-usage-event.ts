import { usageEventSchema, type UsageEvent } from './usage-event.ts';

const REQUIRED_TEXT = ['requestId', 'tenantId', 'keyId', 'format', 'model'] as const;
const OPTIONAL_TEXT = ['upstreamProtocol', 'provider', 'upstreamModel'] as const;
const REQUIRED_COUNTS = ['inputTokens', 'outputTokens', 'occurredAt'] as const;
const OPTIONAL_COUNTS = ['cachedTokens', 'reasoningTokens', 'costMicros'] as const;
const KNOWN = new Set<string>([
  ...REQUIRED_TEXT,
  ...OPTIONAL_TEXT,
  ...REQUIRED_COUNTS,
  ...OPTIONAL_COUNTS,
  'status',
  'stream',
  'estimated',
  'latencyMs',
  'timeToFirstTokenMs',
]);

const isText = (value: unknown): boolean => typeof value === 'string' && value.length > 0;
const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;
const isDuration = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/**
 * True when `value` is an event `usageEventSchema` accepts and would return unchanged: every
 * field valid and none unknown (which the schema would strip) or present but undefined. The
 * sinks check events this way and leave the rest to the schema, whose parse copies the event
 * and was two of the seventy kilobytes a request allocates (docs/performance.md). The schema
 * stays the definition; a property test holds the two together.
 */
export function isExactUsageEvent(value: unknown): value is UsageEvent {
  if (typeof value !== 'object' || value === null) return false;
  const event = value as Record<string, unknown>;
  for (const key in event) if (!KNOWN.has(key) || event[key] === undefined) return false;
  for (const key of REQUIRED_TEXT) if (!isText(event[key])) return false;
  for (const key of OPTIONAL_TEXT) if (key in event && !isText(event[key])) return false;
  for (const key of REQUIRED_COUNTS) if (!isCount(event[key])) return false;
  for (const key of OPTIONAL_COUNTS) if (key in event && !isCount(event[key])) return false;
  const status = event.status;
  return (
    Number.isSafeInteger(status) &&
    (status as number) >= 100 &&
    (status as number) <= 599 &&
    typeof event.stream === 'boolean' &&
    typeof event.estimated === 'boolean' &&
    isDuration(event.latencyMs) &&
    (!('timeToFirstTokenMs' in event) || isDuration(event.timeToFirstTokenMs))
  );
}

/** `usageEventSchema.safeParse`, without its parse and copy for an event the check vouches for. */
export function parseUsageEvent(value: unknown): ReturnType<typeof usageEventSchema.safeParse> {
  return isExactUsageEvent(value) ? { success: true, data: value } : usageEventSchema.safeParse(value);
}
