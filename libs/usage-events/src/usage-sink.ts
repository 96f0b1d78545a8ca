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
   * Fire and forget, on the request's hot path: validates and buffers the event and returns at
   * once. Never throws, never waits for I/O; failures go to the sink's callbacks.
   */
  emit(event: UsageEvent): void;
  /** Delivers what is buffered (within a bounded time), then releases connections. */
  close(): Promise<void>;
}

export interface UsageSinkCallbacks {
  /** Delivery failures, for the log. Called at most once per failed attempt. */
  onError?: (error: unknown) => void;
  /** Events given up, for a counter metric; `count` is how many at once. */
  onDrop?: (count: number, reason: UsageDropReason) => void;
}
