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
 *
 * `--heap-growing-percent=50`: after each full collection V8 lets the old generation grow to a
 * factor of what survived before the next one. The factor's ceiling is 4 when the heap may take
 * the size V8 picks for the machine, and near 1.4 in a 1 GiB pod, where the heap is sized from
 * the cgroup. A gateway on a large host then kept up to four times its live heap between
 * collections: RSS stepped up for minutes into a soak and stayed there. A fixed 1.5 gives every
 * host the pod's behaviour. It costs one more full collection now and then, and that is cheap now
 * that requests are no longer promoted in bulk (docs/performance.md, "The Set that promoted
 * every request").
 */
export function tuneV8(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
  setFlagsFromString('--heap-growing-percent=50');
}
