import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings every Switchyard process runs with, set before anything else is loaded: V8 only
 * takes some flags on the command line, and Node refuses these in NODE_OPTIONS, where the image
 * puts the others (deploy/Dockerfile).
 *
 * `--no-allocation-site-pretenuring`: V8 watches which allocation sites' objects survive young
 * collections and, past 85%, allocates that site's objects in the old generation directly. With
 * tens of requests in flight, the sites of request-scoped objects (response headers, hook
 * closures, parsed bodies) read as long-lived, so from then on every request's objects were born
 * old and died old: 6–7 KB a request more old space, a full collection every few seconds, and
 * young collections three times as costly (docs/performance.md, "Pretenuring"). Switched off,
 * what lives long is still promoted by the young collector, once.
 */
export function tuneV8(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
