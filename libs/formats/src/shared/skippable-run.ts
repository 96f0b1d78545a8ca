import type { SkippedEvents } from '../wire-format.ts';
import { escapeForPattern } from './json-text.ts';

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

/**
 * The sticky pattern (for leadingRun) of one whole event that a monitor skipping by
 * `leadingTypeOtherThan(types)` and `endsLikeObject` skips, in the one shape a relay passes on
 * without the parser: an optional `event:` line, one `data:` line written `{"type":"…"` with a
 * type none of `types` and ending with `}`, LF line ends. Nothing in it spans a line.
 */
export function eventOfTypeOtherThan(types: readonly string[]): RegExp {
  const names = types.map(escapeForPattern).join('|');
  return new RegExp(`(?:event: [^\\n\\r]*\\n)?data: \\{"type":"(?!(?:${names})")[^"\\\\\\n\\r]*"[^\\n\\r]*\\}\\n\\n`, 'y');
}
