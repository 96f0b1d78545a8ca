import { symbols } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';
import { traceLogFields } from './tracing.ts';

const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
afterEach(() => {
  if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
});

const mixinOf = (logger: object): unknown => (logger as Record<symbol, unknown>)[symbols.mixinSym];

describe('createLogger', () => {
  it('adds the active trace to each line only when tracing is configured', () => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    expect(mixinOf(createLogger({ level: 'silent' }))).toBeUndefined();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = 'http://127.0.0.1:4318';
    expect(mixinOf(createLogger({ level: 'silent' }))).toBe(traceLogFields);
  });
});
