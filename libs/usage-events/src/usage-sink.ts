import type { UsageEvent } from './usage-event.ts';

/**
 * Why events were given up: `invalid` failed the schema, `buffer_full` arrived while the
 * buffer was full (the queue or aggregator unreachable for long), `closed` were still
 * buffered when the sink closed or arrived after.
 */
export type UsageDropReason = 'invalid' | 'buffer_full' | 'closed';

/** Where the router reports each finished request. */
export interface UsageSink {
  /**
   * On the request's hot path: validates and buffers the event and returns at once. Never
   * throws; failures go to the sink's callbacks. The promise settles (never rejects) once the
   * event is durable — staged in Redis — or given up on, so a router can hold an answer's
   * last byte until its usage cannot be lost with the process (issue 7). While the queue is
   * unreachable the promise settles at once: an outage of accounting must not hold answers.
   */
  emit(event: UsageEvent): Promise<void>;
  /** Delivers what is buffered (within a bounded time), then releases connections. */
  close(): Promise<void>;
}

export interface UsageSinkCallbacks {
  /** Delivery failures, for the log. Called at most once per failed attempt. */
  onError?: (error: unknown) => void;
  /** Events given up, for a counter metric; `count` is how many at once. */
  onDrop?: (count: number, reason: UsageDropReason) => void;
}
