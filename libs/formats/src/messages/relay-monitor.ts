import type { GatewayError } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import { endsLikeObject, leadingTypeStartingWith, RelayMonitorState } from '../shared/index.ts';
import type { RelayMonitor } from '../wire-format.ts';
import { convertUsageToCanonical, mergeUsage, type MessagesUsage } from './convert-usage.ts';
import { errorFromStreamEvent } from './errors.ts';
import { parseStreamEvent } from './parse-stream-event.ts';
import { streamEndedBeforeStop, unreadableStreamEvent } from './stream-decoder.ts';

/** Every content event starts `{"type":"content_block_`: the vendor writes `type` first and compact. */
const CONTENT_EVENT = leadingTypeStartingWith('content_block_');

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

  protected endOfStream(): GatewayError {
    return streamEndedBeforeStop();
  }

  #merge(next: MessagesUsage | null | undefined): void {
    if (mergeUsage(this.#merged, next)) this.knownUsage = convertUsageToCanonical(this.#merged);
  }
}
