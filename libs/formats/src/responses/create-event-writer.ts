import type { GatewayError } from '@switchyard/canonical';
import { formatSseEvent } from '@switchyard/sse';
import { streamErrorEvent } from './errors.ts';

/** The JSON between `sequence_number` and `delta` of one part's delta events, built once per part. */
export type Locator = string;

export function locatorOf(itemId: string, outputIndex: number, position = ''): Locator {
  return `,"item_id":${JSON.stringify(itemId)},"output_index":${outputIndex}${position}`;
}

/**
 * Numbers and frames the events of one Responses stream: `sequence_number` counts from 0, and
 * every event carries both the `event:` line and the JSON `type` (protocols.md §2, §4.4).
 */
export interface EventWriter {
  event(type: string, fields: Record<string, unknown>): void;
  /** Delta events are the hot path (one per token): concatenated, no object per event. */
  delta(type: string, locator: Locator, delta: string, tail: string): void;
  error(error: GatewayError): void;
  /** The SSE text written since the last call. */
  take(): string;
}

export function createEventWriter(): EventWriter {
  let out = '';
  let sequence = 0;
  return {
    event(type, fields) {
      out += formatSseEvent(JSON.stringify({ type, sequence_number: sequence++, ...fields }), type);
    },
    delta(type, locator, delta, tail) {
      out +=
        `event: ${type}\ndata: {"type":"${type}","sequence_number":${sequence++}` +
        `${locator},"delta":${JSON.stringify(delta)}${tail}}\n\n`;
    },
    error(error) {
      out += streamErrorEvent(error, sequence++);
    },
    take() {
      const text = out;
      out = '';
      return text;
    },
  };
}
