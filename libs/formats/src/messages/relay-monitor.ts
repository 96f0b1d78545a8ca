import type { GatewayError } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import { endsLikeObject, leadingRun, leadingTypeStartingWith, NONE_SKIPPED, RelayMonitorState } from '../shared/index.ts';
import type { RelayMonitor, SkippedEvents } from '../wire-format.ts';
import { convertUsageToCanonical, mergeUsage, type MessagesUsage } from './convert-usage.ts';
import { errorFromStreamEvent } from './errors.ts';
import { parseStreamEvent } from './parse-stream-event.ts';
import { streamEndedBeforeStop, unreadableStreamEvent } from './stream-decoder.ts';

/** Every content event starts `{"type":"content_block_`: the vendor writes `type` first and compact. */
const CONTENT_EVENT = leadingTypeStartingWith('content_block_');

/**
 * One event push() skips, in the one shape a relay passes on without the SSE parser: an
 * optional `event:` line and one `data:` line, LF line ends. A ping whatever its data, or data
 * that CONTENT_EVENT matches and that ends like an object (a ping or a content event named
 * otherwise is skipped all the same: push() goes by the ping's name and the content's data).
 */
const SKIPPABLE_EVENT = /(?:event: ping\ndata: [^\n\r]*|(?:event: [^\n\r]*\n)?data: \{"type":"content_block_[^\n\r]*\})\n\n/y;

/**
 * What the router needs of a same-format messages stream, tracked as createStreamDecoder tracks
 * it but without reading content:
 *
 * - `finish` comes on `message_stop`, with the usage of `message_start` (input and cache
 *   counts) merged with every `message_delta`'s (cumulative output; null means unchanged).
 * - An `error` event or data that is not a JSON object ends the stream with an error; EOF
 *   before `message_stop` is a truncation.
 *
 * `ping` events are skipped as the decoder skips them. The content_block_start/delta/stop
 * events, nearly all of a stream, are recognised by their first bytes and never parsed:
 * whatever a content event says, the decoder makes only content parts of it. A type starting
 * `content_block_` is the event's real type, as a JSON string's content cannot hold an
 * unescaped quote (shared/json-text.ts). Every other event (a handful per stream) is parsed.
 */
export function createRelayMonitor(): RelayMonitor {
  return new MessagesRelayMonitor();
}

class MessagesRelayMonitor extends RelayMonitorState {
  readonly #merged: MessagesUsage = {};

  push(sseEvent: SseEvent): void {
    if (this.ended || sseEvent.event === 'ping') return;
    const data = sseEvent.data;
    if (CONTENT_EVENT.test(data) && endsLikeObject(data)) return;
    const event = parseStreamEvent(data);
    if (event === undefined) {
      this.fail(unreadableStreamEvent());
      return;
    }
    switch (event.type) {
      case 'message_start':
        this.#merge(event.message?.usage);
        return;
      case 'message_delta':
        this.#merge(event.usage);
        return;
      case 'message_stop':
        this.finish();
        return;
      case 'error':
        this.fail(errorFromStreamEvent(event));
        return;
      default:
        return;
    }
  }

  /** The content events and pings (nearly all of a stream) in a row, found by one pattern each. */
  skippablePrefix(text: string): SkippedEvents {
    return this.ended ? NONE_SKIPPED : leadingRun(SKIPPABLE_EVENT, text);
  }

  protected endOfStream(): GatewayError {
    return streamEndedBeforeStop();
  }

  #merge(next: MessagesUsage | null | undefined): void {
    if (mergeUsage(this.#merged, next)) this.knownUsage = convertUsageToCanonical(this.#merged);
  }
}
