import type { MessagesUsage } from './convert-usage.ts';

/**
 * One messages stream event (protocols.md §5.5) with every field optional: the decoder reads
 * only what each event type defines and tolerates what a compatible upstream leaves out.
 */
export interface MessagesStreamEvent {
  type?: string;
  index?: number;
  message?: { id?: string; model?: string; usage?: MessagesUsage | null };
  content_block?: { type?: string; id?: string; name?: string; text?: string; thinking?: string; data?: string };
  delta?: {
    type?: string;
    text?: string;
    partial_json?: string;
    thinking?: string;
    signature?: string;
    stop_reason?: string | null;
    stop_sequence?: string | null;
  };
  usage?: MessagesUsage | null;
  error?: { type?: string; message?: string };
}

/** The event's JSON, or undefined when the data is not a JSON object. */
export function parseStreamEvent(data: string): MessagesStreamEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as MessagesStreamEvent) : undefined;
}
