import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** An attribute value as OTLP/JSON carries it, flattened to a plain JS value. */
export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };

/** One exported span, flattened from OTLP/JSON (ids as lower-case hex). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  /** `service.name` of the resource that exported the span. */
  serviceName: string;
  resourceAttributes: Record<string, AttributeValue>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

export interface OtlpReceiver {
  /** The URL to give as OTEL_EXPORTER_OTLP_TRACES_ENDPOINT. */
  tracesUrl: string;
  port: number;
  /** Every span received so far, in arrival order. */
  spans(): ReceivedSpan[];
  /** Every export request received so far, any path, as raw text (after gunzip). */
  rawBodies(): string[];
  /** Export requests that were not OTLP/JSON (e.g. protobuf): counted, not parsed. */
  unparsedRequests(): number;
  /** Waits until `predicate(spans)` holds; rejects after `timeoutMs` with what was received. */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

/**
 * A minimal OTLP/HTTP trace receiver for tests: answers every POST with 200 `{}` and keeps
 * what it got. Exporters must use `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json`; other bodies
 * are only counted. Listens on 127.0.0.1, on `port` (0: any free port).
 */
export async function startOtlpReceiver(options: { port?: number } = {}): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const raw: string[] = [];
  let unparsed = 0;
  const server: Server = createServer((request, response) => {
    readBody(request).then(
      (body) => {
        raw.push(body.toString('utf8'));
        const type = String(request.headers['content-type'] ?? '');
        if (request.method === 'POST' && type.includes('json')) {
          try {
            spans.push(...flattenExport(JSON.parse(body.toString('utf8')) as OtlpExport));
          } catch {
            unparsed++;
          }
        } else {
          unparsed++;
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{}');
      },
      () => {
        response.writeHead(400);
        response.end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    tracesUrl: `http://127.0.0.1:${port}/v1/traces`,
    port,
    spans: () => [...spans],
    rawBodies: () => [...raw],
    unparsedRequests: () => unparsed,
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (predicate(spans)) return [...spans];
        if (Date.now() >= deadline) {
          const seen = spans.map((span) => `${span.serviceName} ${span.name} kind=${span.kind} trace=${span.traceId}`).join('\n');
          throw new Error(`OTLP receiver: condition not met within ${timeoutMs} ms; ${spans.length} spans received:\n${seen}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > 64 * 1024 * 1024) throw new Error('export too large');
    chunks.push(buffer);
  }
  const body = Buffer.concat(chunks);
  return request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
}

// --- OTLP/JSON (opentelemetry-proto, JSON mapping) --------------------------------------------

interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
  kvlistValue?: { values?: OtlpKeyValue[] };
  bytesValue?: string;
}
interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}
interface OtlpSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  kind?: number;
  attributes?: OtlpKeyValue[];
  status?: { code?: number };
}
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: Array<{ spans?: OtlpSpan[] }>;
  }>;
}

function flattenExport(payload: OtlpExport): ReceivedSpan[] {
  const result: ReceivedSpan[] = [];
  for (const resourceSpans of payload.resourceSpans ?? []) {
    const resourceAttributes = attributesOf(resourceSpans.resource?.attributes);
    const serviceName = typeof resourceAttributes['service.name'] === 'string' ? resourceAttributes['service.name'] : '';
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        result.push({
          traceId: hexId(span.traceId),
          spanId: hexId(span.spanId),
          parentSpanId: hexId(span.parentSpanId),
          name: span.name ?? '',
          kind: span.kind ?? 0,
          attributes: attributesOf(span.attributes),
          serviceName,
          resourceAttributes,
          statusCode: span.status?.code ?? 0,
        });
      }
    }
  }
  return result;
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const entry of list ?? []) attributes[entry.key] = valueOf(entry.value);
  return attributes;
}

function valueOf(value: OtlpAnyValue | undefined): AttributeValue {
  if (value === undefined) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.kvlistValue !== undefined) return attributesOf(value.kvlistValue.values);
  if (value.bytesValue !== undefined) return value.bytesValue;
  return null;
}

/** The JSON mapping says hex; some exporters send base64 of the bytes. Either way: lower-case hex. */
function hexId(id: string | undefined): string {
  if (id === undefined || id === '') return '';
  if (/^[0-9a-fA-F]+$/.test(id) && (id.length === 32 || id.length === 16)) return id.toLowerCase();
  return Buffer.from(id, 'base64').toString('hex');
}
