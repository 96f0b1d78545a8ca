import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from '@switchyard/telemetry';

/**
 * A window counts as busy above this share of the event loop's time, and as idle below the
 * second. One in between (a probe, a scrape, V8 finishing a collection on the main thread, a
 * moment the machine was busy elsewhere) is part of the quiet period but is not the moment to
 * trim: an idle process read 0.2–0.8% with windows of 1–5% now and then, more of them just
 * after load (docs/performance.md). Counting only idle windows made the trim's time depend on
 * how many of those came: 60 s took 100 s after a load.
 */
const BUSY_ABOVE = 0.05;
const IDLE_BELOW = 0.01;
/** The longest window the event loop's utilization is read over. */
const MAX_WINDOW_MS = 1000;

/**
 * Decides, one window at a time, when to trim: on the first idle window once `quietWindows`
 * windows have passed since the last busy one, and once only until the process is busy
 * again. Start-up counts as busy, since it leaves its garbage and a young generation grown
 * while loading modules.
 */
export function createIdleTrigger(quietWindows: number): (utilization: number) => boolean {
  let armed = true;
  let sinceBusy = 0;
  return (utilization) => {
    if (utilization > BUSY_ABOVE) {
      armed = true;
      sinceBusy = 0;
      return false;
    }
    sinceBusy++;
    if (!armed || sinceBusy < quietWindows || utilization >= IDLE_BELOW) return false;
    armed = false;
    return true;
  };
}

/** V8's own collector, as `--expose-gc` exposes it, reached without putting `gc` on this realm's global. */
type ExposedGc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

function exposedGc(): ExposedGc {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as ExposedGc;
}

/**
 * Gives memory back once a process has gone quiet. After a busy spell V8 keeps what the load
 * grew: the young generation's two semi-spaces at their maximum and old-space pages full of
 * garbage, which its memory reducer returns only later, if at all (docs/performance.md, "Memory
 * after load"). So once the process has been idle for `afterMs` following a busy spell, one
 * memory-reducing full collection runs. Its pause (tens of ms) falls when nothing is being
 * served, but it also discards compiled code and feedback: the next burst's first second costs
 * about twice the CPU per request while V8 compiles again (measured). Hence a wait of minutes
 * by default, a quiet period rather than a lull. `afterMs` 0 turns it off.
 */
export function startIdleHeapTrim(options: { afterMs: number; logger: Logger }): { stop(): void } {
  if (options.afterMs <= 0) return { stop: () => {} };
  // Reached on the first trim only: a process that never trims never changes a V8 flag.
  let gc: ExposedGc | undefined;
  const windowMs = Math.min(MAX_WINDOW_MS, options.afterMs);
  const trigger = createIdleTrigger(Math.max(1, Math.round(options.afterMs / windowMs)));
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const window = performance.eventLoopUtilization(now, last);
    last = now;
    if (!trigger(window.utilization)) return;
    const before = process.memoryUsage();
    const started = performance.now();
    gc ??= exposedGc();
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const after = process.memoryUsage();
    // The collection's own time must not make the next window look busy and re-arm the trigger.
    last = performance.eventLoopUtilization();
    // At info: it runs at most once a quiet period, and it explains a drop in a pod's memory
    // (and tells the bench that a reading of RSS after load came after it).
    options.logger.info(
      {
        durationMs: Math.round(performance.now() - started),
        heapUsedBefore: before.heapUsed,
        heapUsedAfter: after.heapUsed,
        heapTotalBefore: before.heapTotal,
        heapTotalAfter: after.heapTotal,
        rssBefore: before.rss,
        rssAfter: after.rss,
      },
      'idle heap trim',
    );
  }, windowMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
