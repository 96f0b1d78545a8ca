import type { CanonicalUsage } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import { usageToCanonical } from './convert-usage.ts';
import { objectField, parseWireObject } from './read-wire-object.ts';

/**
 * Usage from one event of a Responses stream, for the same-format fast path. Only the terminal
 * `response.completed` / `response.incomplete` carry it (protocols.md §4.1: no include_usage);
 * the string checks keep every other event from being parsed.
 */
export function extractUsage(event: SseEvent): Partial<CanonicalUsage> | undefined {
  const name = event.event;
  if (name !== undefined && name !== 'response.completed' && name !== 'response.incomplete') return undefined;
  if (!event.data.includes('"usage"')) return undefined;
  const data = parseWireObject(event.data);
  const type = data?.['type'];
  if (type !== 'response.completed' && type !== 'response.incomplete') return undefined;
  const usage = objectField(objectField(data, 'response'), 'usage');
  return usage === undefined ? undefined : usageToCanonical(usage);
}
