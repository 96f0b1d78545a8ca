import type { GatewayError } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import { endsLikeObject, eventOfTypeOtherThan, leadingRun, leadingTypeOtherThan, NONE_SKIPPED, RelayMonitorState } from '../shared/index.ts';
import type { RelayMonitor, SkippedEvents } from '../wire-format.ts';
import { usageToCanonical } from './convert-usage.ts';
import { objectField, parseWireObject } from './read-wire-object.ts';
import { errorFromErrorEvent, errorFromFailedEvent, streamEndedIncomplete, unreadableStreamEvent } from './stream-decoder.ts';

const TERMINAL_TYPES = ['response.completed', 'response.incomplete', 'response.failed', 'error'];
/** Events of any type but those that end a stream: the decoder makes only content (or nothing) of them. */
const NON_TERMINAL_EVENT = leadingTypeOtherThan(TERMINAL_TYPES);
/** The same, as a whole plainly framed event (see skippablePrefix). */
const SKIPPABLE_EVENT = eventOfTypeOtherThan(TERMINAL_TYPES);

/**
 * What the router needs of a same-format Responses stream, tracked as createStreamDecoder
 * tracks it but without reading content:
 *
 * - `finish` comes on `response.completed` or `response.incomplete`, with the usage of the
 *   response object it carries (the only usage a Responses stream sends).
 * - `response.failed`, an `error` event and data that is not a JSON object end the stream with
 *   an error; EOF before a terminal event is a truncation.
 *
 * The decoder goes by the data's `type` (the SSE event name only when the data has none).
 * Events written `{"type":"…"` with a non-terminal type, nearly all of a stream, are known from
 * their first bytes and never parsed (shared/json-text.ts: content cannot fake the type, whose
 * quotes would be escaped inside a string); every other event is parsed.
 */
export function createRelayMonitor(): RelayMonitor {
  return new ResponsesRelayMonitor();
}

class ResponsesRelayMonitor extends RelayMonitorState {
  push(event: SseEvent): void {
    if (this.ended) return;
    const text = event.data;
    if (NON_TERMINAL_EVENT.test(text) && endsLikeObject(text)) return;
    const data = parseWireObject(text);
    if (data === undefined) {
      this.fail(unreadableStreamEvent());
      return;
    }
    switch (data['type'] ?? event.event) {
      case 'response.completed':
      case 'response.incomplete': {
        this.finish();
        const usage = usageToCanonical(objectField(data, 'response')?.['usage']);
        // The decoder's finish carries an estimated zero when the upstream sent no usage.
        this.knownUsage = usage.estimated === true ? undefined : usage;
        return;
      }
      case 'response.failed':
        this.fail(errorFromFailedEvent(data));
        return;
      case 'error':
        this.fail(errorFromErrorEvent(data));
        return;
      default:
        return;
    }
  }

  /** The non-terminal events (nearly all of a stream) in a row, found by one pattern each. */
  skippablePrefix(text: string): SkippedEvents {
    return this.ended ? NONE_SKIPPED : leadingRun(SKIPPABLE_EVENT, text);
  }

  protected endOfStream(): GatewayError {
    return streamEndedIncomplete();
  }
}
