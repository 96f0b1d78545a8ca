import type { UsageEvent } from './usage-event.ts';
import type { UsageDropReason, UsageSink, UsageSinkCallbacks } from './usage-sink.ts';
import { callSafely } from './call-safely.ts';
import { parseUsageEvent } from './is-usage-event.ts';

export interface BufferedUsageSinkOptions extends UsageSinkCallbacks {
  /** Events held while the store is unreachable; beyond it new events are dropped. Default 10,000. */
  maxBufferedEvents?: number;
  /** Events per delivered batch, and so per round trip. Default 200. */
  batchSize?: number;
  /** Bound on one delivery; past it the delivery counts as failed and is retried. Default 2 s. */
  sendTimeoutMs?: number;
  /** How long close() keeps trying to deliver what is buffered. Default 5 s. */
  closeTimeoutMs?: number;
}

export interface BufferedUsageSink extends UsageSink {
  /** Events accepted and not yet delivered, for a gauge. */
  readonly bufferedEvents: number;
}

/** What a delivery is opened with: the sink's error reporter and its resolved bounds. */
export interface DeliveryContext {
  /** Takes the delivery's connection errors, rate-limited like the sink's own. */
  report: (error: unknown) => void;
  sendTimeoutMs: number;
  closeTimeoutMs: number;
}

/** Where a buffered sink's batches go, and the connection it closes with the sink. */
export interface UsageDelivery {
  /** Makes the events durable; resolves once they are, rejects when it could not tell. */
  deliver(events: UsageEvent[]): Promise<unknown>;
  /** Called once, after the last delivery; must end within the sink's close timeout. */
  close(): Promise<void>;
}

const SETTLED = Promise.resolve();
const settled = (): void => {};

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 10_000;

/**
 * A usage sink's buffering, shared by its deliveries (staged in Redis for the workers, or
 * recorded in the aggregates by `all`): `emit` only validates and buffers; a background loop
 * delivers the buffer in batches, one at a time. What emit returns settles once its event is
 * delivered, or at once while deliveries fail, so that an outage of accounting never holds an
 * answer. Failed deliveries are retried with backoff; the buffer is bounded, and what does not
 * fit is dropped and counted through `onDrop`. A delivery that timed out but had in fact landed
 * is delivered again; the aggregator's markers count its events once.
 */
export function createBufferedUsageSink(
  options: BufferedUsageSinkOptions,
  openDelivery: (context: DeliveryContext) => UsageDelivery,
): BufferedUsageSink {
  const maxBuffered = options.maxBufferedEvents ?? 10_000;
  const batchSize = options.batchSize ?? 200;
  const sendTimeoutMs = options.sendTimeoutMs ?? 2_000;
  const closeTimeoutMs = options.closeTimeoutMs ?? 5_000;
  const report = createReporter(options.onError);
  const drop = (count: number, reason: UsageDropReason): void =>
    callSafely(() => options.onDrop?.(count, reason));
  const delivery = openDelivery({ report, sendTimeoutMs, closeTimeoutMs });

  const buffer: UsageEvent[] = [];
  /** One per buffered event, same order: settles the promise emit returned for it. */
  const settlers: Array<() => void> = [];
  /** The last send failed and none has succeeded since: emits do not wait for delivery. */
  let unreachable = false;
  let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  let flushing: Promise<boolean> | undefined;
  /** The last send while it is unsettled: a hung send is never joined by a second one. */
  let unsettledSend: Promise<unknown> | undefined;
  let retryDelayMs = 0;
  let closed = false;
  let closing: Promise<void> | undefined;

  function schedule(delayMs: number): void {
    if (closed || flushing !== undefined || timer !== undefined) return;
    const run = (): void => {
      timer = undefined;
      void flush().then((delivered) => {
        if (delivered) retryDelayMs = 0;
        else retryDelayMs = Math.min(Math.max(retryDelayMs * 2, RETRY_MIN_MS), RETRY_MAX_MS);
        if (buffer.length > 0) schedule(retryDelayMs);
      });
    };
    // The first send after an emit waits only for the other emits of this event-loop turn: an
    // answer's last byte waits for it, and a 0 ms timer is clamped to 1 ms. It keeps the process
    // alive; a retry must not keep a finished process alive.
    timer = delayMs === 0 ? setImmediate(run) : setTimeout(run, delayMs).unref();
  }

  function cancelTimer(): void {
    if (timer === undefined) return;
    if ('refresh' in timer) clearTimeout(timer);
    else clearImmediate(timer);
    timer = undefined;
  }

  /** Sends the whole buffer, one batch at a time; false at the first failure (the rest stays buffered). */
  function flush(): Promise<boolean> {
    flushing ??= (async () => {
      try {
        while (buffer.length > 0) {
          const batch = buffer.slice(0, batchSize);
          await send(batch);
          unreachable = false;
          // Only emits append to the buffer, so its head is still this batch.
          buffer.splice(0, batch.length);
          for (const settle of settlers.splice(0, batch.length)) settle();
        }
        return true;
      } catch (error) {
        report(error);
        // The events stay buffered for the retry, but nobody waits for it.
        unreachable = true;
        settleWaiting();
        return false;
      } finally {
        flushing = undefined;
      }
    })();
    return flushing;
  }

  async function send(batch: UsageEvent[]): Promise<void> {
    if (unsettledSend !== undefined) throw new Error('usage store unreachable: the previous delivery has not settled');
    const sending = delivery.deliver(batch);
    const settled = sending.then(
      () => undefined,
      () => undefined,
    );
    unsettledSend = settled;
    void settled.then(() => {
      if (unsettledSend === settled) unsettledSend = undefined;
    });
    await withTimeout(sending, sendTimeoutMs, 'usage delivery timed out');
  }

  /** Releases every caller waiting for delivery; their events stay buffered. */
  function settleWaiting(): void {
    for (let index = 0; index < settlers.length; index++) {
      (settlers[index] as () => void)();
      settlers[index] = settled;
    }
  }

  return {
    get bufferedEvents() {
      return buffer.length;
    },

    emit(event: UsageEvent): Promise<void> {
      try {
        if (closed) {
          drop(1, 'closed');
          return SETTLED;
        }
        const parsed = parseUsageEvent(event);
        if (!parsed.success) {
          drop(1, 'invalid');
          report(parsed.error);
          return SETTLED;
        }
        if (buffer.length >= maxBuffered) {
          drop(1, 'buffer_full');
          return SETTLED;
        }
        buffer.push(parsed.data);
        schedule(0);
        if (unreachable) {
          settlers.push(settled);
          return SETTLED;
        }
        return new Promise<void>((resolve) => settlers.push(resolve));
      } catch (error) {
        report(error);
        return SETTLED;
      }
    },

    close(): Promise<void> {
      closing ??= (async () => {
        closed = true;
        cancelTimer();
        const deadline = Date.now() + closeTimeoutMs;
        while (buffer.length > 0 && Date.now() < deadline) {
          if (!(await withTimeout(flush(), Math.max(1, deadline - Date.now()), 'close deadline').catch(() => false))) {
            await new Promise((resolve) => setTimeout(resolve, Math.min(RETRY_MIN_MS, Math.max(0, deadline - Date.now()))));
          }
        }
        if (buffer.length > 0) drop(buffer.splice(0).length, 'closed');
        for (const settle of settlers.splice(0)) settle();
        await delivery.close().catch(report);
      })();
      return closing;
    },
  };
}

/**
 * Passes errors to the callback, but the same message at most once per interval: an
 * unreachable Redis fails every send and every reconnect, and the log needs to hear it once.
 */
function createReporter(onError: ((error: unknown) => void) | undefined, intervalMs = 10_000): (error: unknown) => void {
  const lastReported = new Map<string, number>();
  return (error) => {
    if (onError === undefined) return;
    const message = error instanceof Error ? error.message : String(error);
    const now = Date.now();
    if (now - (lastReported.get(message) ?? -Infinity) < intervalMs) return;
    if (lastReported.size > 100) lastReported.clear();
    lastReported.set(message, now);
    callSafely(() => onError(error));
  };
}

export async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
