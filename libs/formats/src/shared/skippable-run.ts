import type { SkippedEvents } from '../wire-format.ts';

/** No run to skip: the monitor needs the next event read. */
export const NONE_SKIPPED: SkippedEvents = Object.freeze({ end: 0, events: 0 });

/**
 * The leading run of events in `text` that `event` matches back to back (RelayMonitor's
 * skippablePrefix). `event` is a sticky pattern for one whole event, its blank line included,
 * in a shape that never needs the SSE parser: one pass of compiled code per event, no string
 * cut out of the text.
 */
export function leadingRun(event: RegExp, text: string): SkippedEvents {
  event.lastIndex = 0;
  let end = 0;
  let events = 0;
  while (event.test(text)) {
    end = event.lastIndex;
    events++;
  }
  return events === 0 ? NONE_SKIPPED : { end, events };
}
