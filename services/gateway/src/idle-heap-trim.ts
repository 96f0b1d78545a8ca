import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from '@switchyard/telemetry';

/**
 * A window counts as busy above this share of the event loop's time, and as idle below the
 * second: between the two (a trickle of probes and scrapes) the state is left as it was.
 */
const BUSY_ABOVE = 0.05;
const IDLE_BELOW = 0.01;

/**
 * Decides, one window at a time, when to trim: on the first idle window after a busy one, and
 * once only until the process is busy again. Start-up counts as busy, since it leaves its
 * garbage and a young generation grown while loading modules.
 */
export function createIdleTrigger(): (utilization: number) => boolean {
  let armed = true;
  return (utilization) => {
    if (utilization > BUSY_ABOVE) armed = true;
    else if (armed && utilization < IDLE_BELOW) {
      armed = false;
      return true;
    }
    return false;
  };
}

/** V8's own collector, as `--expose-gc` exposes it, reached without putting `gc` on this realm's global. */
type ExposedGc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

function exposedGc(): ExposedGc {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as ExposedGc;
}

/**
 * Gives memory back once a load is over. After a busy spell V8 keeps what the load grew: the
 * young generation's two semi-spaces at their maximum and old-space pages full of garbage,
 * which its memory reducer returns only minutes later (docs/performance.md, "Memory after
 * load"). So when a busy window is followed by an idle one, one memory-reducing full
 * collection runs: the pause (tens of ms) falls when no request is being served, and a pod's
 * working set, which is what limits and autoscalers read, drops back towards its idle size.
 * `intervalMs` 0 turns it off.
 */
export function startIdleHeapTrim(options: { intervalMs: number; logger: Logger }): { stop(): void } {
  if (options.intervalMs <= 0) return { stop: () => {} };
  const gc = exposedGc();
  const trigger = createIdleTrigger();
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const window = performance.eventLoopUtilization(now, last);
    last = now;
    if (!trigger(window.utilization)) return;
    const before = process.memoryUsage();
    const started = performance.now();
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const after = process.memoryUsage();
    // The collection's own time must not make the next window look busy and re-arm the trigger.
    last = performance.eventLoopUtilization();
    options.logger.debug(
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
  }, options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
