import type { RelayMonitor, SkippedEvents } from '@switchyard/formats';
import type { SseParser } from '@switchyard/sse';

/** A monitor whose format has runs of events it never reads. */
export type SkippingMonitor = RelayMonitor & { skippablePrefix(text: string): SkippedEvents };

export function canSkip(monitor: RelayMonitor | undefined): monitor is SkippingMonitor {
  return monitor?.skippablePrefix !== undefined;
}

/**
 * Reads a watched same-format stream: the runs of events its monitor would skip unread (most of
 * a stream: content deltas) are handed on as they came, delimited but not parsed one by one;
 * every other event goes through the parser, whose callback reads and relays it as before
 * (docs/performance.md). A run is looked for only from an event boundary, so a read that ends
 * inside an event leaves the next one to the parser until a read ends on a blank line again.
 */
export function createSkippingReader(
  parser: SseParser,
  monitor: SkippingMonitor,
  /** A run of whole events the monitor would skip unread, to relay as it came. */
  relay: (text: string, events: number) => void,
): (chunk: Uint8Array) => void {
  let atBoundary = true;
  return (chunk) => {
    let text = parser.decode(chunk);
    while (atBoundary && text.length > 0 && !monitor.finished && monitor.error === undefined) {
      const skipped = monitor.skippablePrefix(text);
      let end = skipped.end;
      if (skipped.events > 0) {
        relay(text.slice(0, end), skipped.events);
      } else {
        // One event read, after which the monitor may skip again (the first ones start the stream).
        end = text.indexOf('\n\n') + 2;
        if (end < 2) break;
        parser.feed(text.slice(0, end));
      }
      text = text.slice(end);
    }
    if (text.length === 0) return;
    parser.feed(text);
    atBoundary = text.endsWith('\n\n');
  };
}
