import { INVALID_SPAN_CONTEXT, propagation, trace, type ProxyTracerProvider, type Span } from '@opentelemetry/api';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_SWITCHYARD_FORMAT,
  ATTR_SWITCHYARD_TENANT,
  activeContext,
  errorType,
  extractTraceContext,
  genAiProviderName,
  genAiSpanName,
  injectTraceHeaders,
  isTracingConfigured,
  SpanKind,
  startTracing,
  traceLogFields,
  withSpan,
} from './tracing.ts';

// ---- A minimal OTLP/HTTP receiver: decodes just the protobuf fields the assertions need. ----

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status: { code: number; message: string };
  events: string[];
}

interface Received {
  path: string;
  contentType: string | undefined;
  resource: Record<string, unknown>;
  spans: ReceivedSpan[];
}

type Field = { number: number; varint?: bigint; bytes?: Uint8Array; fixed?: Uint8Array };

function* fields(buffer: Uint8Array): Generator<Field> {
  let offset = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buffer[offset++];
      if (byte === undefined) throw new Error('truncated varint');
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (offset < buffer.length) {
    const key = Number(varint());
    const number = key >>> 3;
    switch (key & 7) {
      case 0:
        yield { number, varint: varint() };
        break;
      case 1:
        yield { number, fixed: buffer.subarray(offset, (offset += 8)) };
        break;
      case 2: {
        const length = Number(varint());
        yield { number, bytes: buffer.subarray(offset, (offset += length)) };
        break;
      }
      case 5:
        yield { number, fixed: buffer.subarray(offset, (offset += 4)) };
        break;
      default:
        throw new Error(`unsupported wire type in field ${number}`);
    }
  }
}

const text = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? []).toString('utf8');
const hex = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? []).toString('hex');

function anyValue(bytes: Uint8Array): unknown {
  for (const field of fields(bytes)) {
    if (field.number === 1) return text(field.bytes);
    if (field.number === 2) return field.varint === 1n;
    if (field.number === 3) return Number(BigInt.asIntN(64, field.varint ?? 0n));
    if (field.number === 4 && field.fixed !== undefined) return Buffer.from(field.fixed).readDoubleLE(0);
    if (field.number === 5 && field.bytes !== undefined) {
      return [...fields(field.bytes)].filter((item) => item.number === 1).map((item) => anyValue(item.bytes ?? new Uint8Array()));
    }
  }
  return undefined;
}

function keyValue(bytes: Uint8Array, into: Record<string, unknown>): void {
  let key = '';
  let value: unknown;
  for (const field of fields(bytes)) {
    if (field.number === 1) key = text(field.bytes);
    if (field.number === 2 && field.bytes !== undefined) value = anyValue(field.bytes);
  }
  into[key] = value;
}

function decodeSpan(bytes: Uint8Array): ReceivedSpan {
  const span: ReceivedSpan = { traceId: '', spanId: '', parentSpanId: '', name: '', kind: 0, attributes: {}, status: { code: 0, message: '' }, events: [] };
  for (const field of fields(bytes)) {
    if (field.number === 1) span.traceId = hex(field.bytes);
    else if (field.number === 2) span.spanId = hex(field.bytes);
    else if (field.number === 4) span.parentSpanId = hex(field.bytes);
    else if (field.number === 5) span.name = text(field.bytes);
    else if (field.number === 6) span.kind = Number(field.varint);
    else if (field.number === 9 && field.bytes !== undefined) keyValue(field.bytes, span.attributes);
    else if (field.number === 11 && field.bytes !== undefined) {
      for (const event of fields(field.bytes)) if (event.number === 2) span.events.push(text(event.bytes));
    } else if (field.number === 15 && field.bytes !== undefined) {
      for (const status of fields(field.bytes)) {
        if (status.number === 2) span.status.message = text(status.bytes);
        if (status.number === 3) span.status.code = Number(status.varint);
      }
    }
  }
  return span;
}

/** ExportTraceServiceRequest → ResourceSpans(1) → Resource(1) / ScopeSpans(2) → Span(2). */
function decodeExport(body: Uint8Array): { resource: Record<string, unknown>; spans: ReceivedSpan[] } {
  const resource: Record<string, unknown> = {};
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of fields(body)) {
    if (resourceSpans.number !== 1 || resourceSpans.bytes === undefined) continue;
    for (const part of fields(resourceSpans.bytes)) {
      if (part.number === 1 && part.bytes !== undefined) {
        for (const attribute of fields(part.bytes)) if (attribute.number === 1 && attribute.bytes !== undefined) keyValue(attribute.bytes, resource);
      }
      if (part.number === 2 && part.bytes !== undefined) {
        for (const scopePart of fields(part.bytes)) if (scopePart.number === 2 && scopePart.bytes !== undefined) spans.push(decodeSpan(scopePart.bytes));
      }
    }
  }
  return { resource, spans };
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
}

async function startReceiver(options: { delayMs?: number } = {}): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    readBody(request).then(
      (body) => {
        received.push({ path: request.url ?? '', contentType: request.headers['content-type'], ...decodeExport(body) });
        // An empty ExportTraceServiceResponse: full success.
        setTimeout(() => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(), options.delayMs ?? 0);
      },
      () => response.writeHead(400).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// ---- Environment handling: every OTEL_* variable is cleared around each test. ----

let savedEnv: Record<string, string | undefined> = {};

beforeEach(() => {
  savedEnv = {};
  for (const name of Object.keys(process.env)) {
    if (name.startsWith('OTEL_')) {
      savedEnv[name] = process.env[name];
      delete process.env[name];
    }
  }
});

afterEach(() => {
  for (const name of Object.keys(process.env)) if (name.startsWith('OTEL_')) delete process.env[name];
  Object.assign(process.env, savedEnv);
});

function delegateName(): string {
  return (trace.getTracerProvider() as ProxyTracerProvider).getDelegate().constructor.name;
}

describe('isTracingConfigured', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, false],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_TRACES_EXPORTER: 'console' }, true],
    [{ OTEL_TRACES_EXPORTER: 'Zipkin' }, true],
  ])('should read %j as %s', (env, expected) => {
    expect(isTracingConfigured(env)).toBe(expected);
  });
});

describe('startTracing without an exporter configured', () => {
  it('should install nothing: no-op tracer, no propagator, no headers written', async () => {
    const tracing = await startTracing({ serviceName: 'switchyard-test' });
    expect(tracing.enabled).toBe(false);
    expect(delegateName()).toBe('NoopTracerProvider');
    expect(propagation.fields()).toEqual([]);

    const result = await withSpan(tracing.tracer, 'chat m', { [ATTR_SWITCHYARD_TENANT]: 't1' }, (span) => {
      expect(span.isRecording()).toBe(false);
      expect(injectTraceHeaders(activeContext(), {})).toEqual({});
      expect(traceLogFields()).toEqual({});
      return 42;
    });
    expect(result).toBe(42);
    const incoming = extractTraceContext({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    expect(trace.getSpanContext(incoming)).toBeUndefined();
    await tracing.shutdown();
  });

  it('should call the function directly with one shared no-op span, passing throws and rejections on', async () => {
    const tracing = await startTracing({ serviceName: 'switchyard-test' });
    const spans: Span[] = [];
    expect(await withSpan(tracing.tracer, 'a', {}, (span) => spans.push(span))).toBe(1);
    expect(await withSpan(tracing.tracer, 'b', {}, async (span) => spans.push(span))).toBe(2);
    expect(spans[1]).toBe(spans[0]);
    expect(spans[0]?.isRecording()).toBe(false);
    expect(trace.isSpanContextValid(spans[0]?.spanContext() ?? INVALID_SPAN_CONTEXT)).toBe(false);
    const failure = new Error('boom');
    await expect(
      withSpan(tracing.tracer, 'c', {}, () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    await expect(withSpan(tracing.tracer, 'd', {}, async () => Promise.reject(failure))).rejects.toBe(failure);
  });

  it('should keep the tracing-off tracer off when an SDK starts later in the process', async () => {
    const off = await startTracing({ serviceName: 'off' });
    const receiver = await startReceiver();
    try {
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
      const on = await startTracing({ serviceName: 'on' });
      await withSpan(off.tracer, 'not exported', {}, () => undefined);
      await withSpan(on.tracer, 'exported', {}, () => undefined);
      await on.shutdown();
      expect(receiver.received.flatMap((batch) => batch.spans.map((span) => span.name))).toEqual(['exported']);
    } finally {
      await receiver.close();
    }
  });

  it('should stay off when OTEL_TRACES_EXPORTER is none even with an endpoint', async () => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = 'http://127.0.0.1:9';
    process.env.OTEL_TRACES_EXPORTER = 'none';
    const tracing = await startTracing({ serviceName: 'switchyard-test' });
    expect(tracing.enabled).toBe(false);
    expect(delegateName()).toBe('NoopTracerProvider');
  });
});

describe('startTracing with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  it('should export spans as OTLP protobuf over HTTP with GenAI attributes, parents and errors', async () => {
    const receiver = await startReceiver();
    try {
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
      const tracing = await startTracing({ serviceName: 'switchyard-test' });
      expect(tracing.enabled).toBe(true);
      expect(propagation.fields()).toContain('traceparent');

      // A client's trace context arrives on the request (header names in any case).
      const clientTraceId = '0af7651916cd43dd8448eb211c80319c';
      const parent = extractTraceContext({ Traceparent: [`00-${clientTraceId}-b7ad6b7169203331-01`] });

      let forwarded: Record<string, string> = {};
      let logFields: ReturnType<typeof traceLogFields> = {};
      await withSpan(
        tracing.tracer,
        'POST /v1/chat/completions',
        { [ATTR_SWITCHYARD_FORMAT]: 'chat-completions', [ATTR_SWITCHYARD_TENANT]: 'acme', unknown: undefined },
        async () => {
          forwarded = injectTraceHeaders(activeContext(), { 'x-request-id': 'req_1' });
          logFields = traceLogFields();
          await withSpan(
            tracing.tracer,
            genAiSpanName('chat', 'gpt-test'),
            { [ATTR_GEN_AI_OPERATION_NAME]: 'chat', [ATTR_GEN_AI_REQUEST_MODEL]: 'gpt-test', 'gen_ai.provider.name': genAiProviderName('chat-completions') },
            async (span) => {
              span.setAttribute(ATTR_GEN_AI_USAGE_INPUT_TOKENS, 12);
            },
            { kind: SpanKind.CLIENT },
          );
        },
        { kind: SpanKind.SERVER, parent },
      );
      const failure = Object.assign(new Error('upstream took too long'), { kind: 'upstream_timeout' });
      await expect(withSpan(tracing.tracer, 'chat slow-model', {}, async () => Promise.reject(failure))).rejects.toBe(failure);

      expect(forwarded['x-request-id']).toBe('req_1');
      expect(forwarded.traceparent).toMatch(new RegExp(`^00-${clientTraceId}-[0-9a-f]{16}-01$`));

      await tracing.shutdown(); // flushes the batch processor
      expect(delegateName()).toBe('NoopTracerProvider');

      expect(receiver.received.length).toBeGreaterThan(0);
      expect(receiver.received[0]?.path).toBe('/v1/traces');
      expect(receiver.received[0]?.contentType).toBe('application/x-protobuf');
      expect(receiver.received[0]?.resource['service.name']).toBe('switchyard-test');
      const spans = receiver.received.flatMap((batch) => batch.spans);
      const server = spans.find((span) => span.name === 'POST /v1/chat/completions');
      const client = spans.find((span) => span.name === 'chat gpt-test');
      const failed = spans.find((span) => span.name === 'chat slow-model');

      expect(server).toMatchObject({
        traceId: clientTraceId,
        parentSpanId: 'b7ad6b7169203331',
        kind: 2, // SPAN_KIND_SERVER
        attributes: { 'switchyard.format': 'chat-completions', 'switchyard.tenant': 'acme' },
      });
      expect(server?.attributes).not.toHaveProperty('unknown');
      expect(client).toMatchObject({
        traceId: clientTraceId,
        parentSpanId: server?.spanId,
        kind: 3, // SPAN_KIND_CLIENT
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-test', 'gen_ai.provider.name': 'openai', 'gen_ai.usage.input_tokens': 12 },
      });
      expect(forwarded.traceparent).toBe(`00-${clientTraceId}-${server?.spanId}-01`);
      expect(logFields).toEqual({ trace_id: clientTraceId, span_id: server?.spanId });
      expect(traceLogFields()).toEqual({});
      expect(failed).toMatchObject({
        attributes: { [ATTR_ERROR_TYPE]: 'upstream_timeout' },
        status: { code: 2, message: 'upstream took too long' }, // STATUS_CODE_ERROR
        events: ['exception'],
      });
      expect(failed?.traceId).not.toBe(clientTraceId);
    } finally {
      await receiver.close();
    }
  });

  it('should let OTEL_SERVICE_NAME win and share one SDK until the last user shuts down', async () => {
    const receiver = await startReceiver();
    try {
      process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `${receiver.url}/custom/traces`;
      process.env.OTEL_SERVICE_NAME = 'from-env';
      const ingress = await startTracing({ serviceName: 'ingress' });
      const router = await startTracing({ serviceName: 'router' });
      await ingress.shutdown();
      await ingress.shutdown();
      expect(delegateName()).not.toBe('NoopTracerProvider');
      await withSpan(router.tracer, 'still exported', {}, () => undefined);
      await router.shutdown();
      expect(delegateName()).toBe('NoopTracerProvider');

      expect(receiver.received.map((batch) => batch.path)).toEqual(['/custom/traces']);
      expect(receiver.received[0]?.resource['service.name']).toBe('from-env');
      expect(receiver.received[0]?.spans.map((span) => span.name)).toEqual(['still exported']);
    } finally {
      await receiver.close();
    }
  });
});

describe('startTracing restarts', () => {
  it('should start a new SDK right after the last one shut down, without the old shutdown undoing it', async () => {
    const receiver = await startReceiver({ delayMs: 300 });
    try {
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
      const first = await startTracing({ serviceName: 'first' });
      await withSpan(first.tracer, 'before restart', {}, () => undefined);
      const stopped = first.shutdown(); // flushing takes 300 ms
      const second = await startTracing({ serviceName: 'second' });
      await stopped;
      expect(second.enabled).toBe(true);
      expect(delegateName()).not.toBe('NoopTracerProvider');
      await withSpan(second.tracer, 'after restart', {}, () => undefined);
      await second.shutdown();
      expect(receiver.received.map((batch) => [batch.resource['service.name'], batch.spans.map((span) => span.name)])).toEqual([
        ['first', ['before restart']],
        ['second', ['after restart']],
      ]);
    } finally {
      await receiver.close();
    }
  });
});

describe('helpers', () => {
  it('should name error types by kind, then exception name', () => {
    expect(errorType(Object.assign(new Error('x'), { kind: 'rate_limited' }))).toBe('rate_limited');
    expect(errorType(new TypeError('x'))).toBe('TypeError');
    expect(errorType('boom')).toBe('_OTHER');
  });

  it('should map upstream protocols to GenAI provider names and build span names', () => {
    expect(['chat-completions', 'responses', 'messages', 'generate-content', 'simulator', 'custom'].map(genAiProviderName)).toEqual([
      'openai',
      'openai',
      'anthropic',
      'gcp.gemini',
      'switchyard.simulator',
      'custom',
    ]);
    expect(genAiSpanName('embeddings', 'text-embed')).toBe('embeddings text-embed');
    expect(genAiSpanName('chat')).toBe('chat');
  });
});
