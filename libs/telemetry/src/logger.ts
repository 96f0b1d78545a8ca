import { pino, type Logger, type LoggerOptions } from 'pino';
import { traceLogFields } from './tracing.ts';

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
 * JSON logs on stdout. pino's default destination writes asynchronously in batches, so logging
 * never blocks the event loop on the hot path.
 */
export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  const config: LoggerOptions = {
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
    redact: { paths: REDACT, censor: '[redacted]' },
    base: options.name === undefined ? {} : { target: options.name },
    // trace_id / span_id of the active span, so a log line leads to its trace.
    mixin: traceLogFields,
  };
  return pino(config, pino.destination({ sync: false }));
}
