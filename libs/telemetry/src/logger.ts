import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { BatchedLineWriter } from './batched-line-writer.ts';
import { isTracingConfigured, traceLogFields } from './tracing.ts';

export type { Logger } from 'pino';

/**
 * Paths that may hold secrets in anything we log. Keys are never put in log objects on
 * purpose; redaction is the second line of defence.
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-goog-api-key"]',
  'req.headers["x-vendorb-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["x-goog-api-key"]',
  'headers["x-vendorb-api-key"]',
  'apiKey',
  'key',
];

/**
 * Lines are held until this many bytes are waiting (or the flush interval passes). Each write
 * is handed to the thread pool, whose thread takes the event loop's core for the system call:
 * at 5,000 requests a second 4 KB batches were 300 writes a second and about 4% of the busy
 * time in a profile; 64 KB batches are twenty.
 */
const BATCH_BYTES = 64 * 1024;
/** Longest a line waits; `SWITCHYARD_LOG_FLUSH_MS` changes it (tests that read logs live set it low). */
const DEFAULT_FLUSH_INTERVAL_MS = 1000;

/**
 * JSON logs on stdout, written off the event loop in batches. An unbatched asynchronous write
 * per line cost every request a thread-pool round trip (futex wakes, an eventfd write and read:
 * two thirds of the extra system calls of a request over the null proxy). A line waits at most
 * the flush interval (1 s by default); what is buffered is written synchronously when the
 * process exits, so only a SIGKILL can lose the last second of lines.
 */
export function createLogger(options: { level?: string; name?: string; destination?: DestinationStream } = {}): Logger {
  const destination = options.destination ?? new BatchedLineWriter(1, { minBytes: BATCH_BYTES, flushIntervalMs: flushIntervalMs() });
  const config: LoggerOptions = {
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
    redact: { paths: REDACT, censor: '[redacted]' },
    base: options.name === undefined ? {} : { target: options.name },
    // trace_id / span_id of the active span, so a log line leads to its trace. Without tracing
    // there is never one, and the mixin would only copy every line's fields for nothing.
    ...(isTracingConfigured() ? { mixin: traceLogFields } : {}),
  };
  return pino(config, destination);
}

function flushIntervalMs(): number {
  const configured = Number(process.env.SWITCHYARD_LOG_FLUSH_MS);
  return Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_FLUSH_INTERVAL_MS;
}
