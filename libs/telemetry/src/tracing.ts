import {
  context,
  diag,
  DiagLogLevel,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  logs,
  propagation,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
  type AttributeValue,
  type Attributes,
  type Context,
  type DiagLogger,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
} from '@opentelemetry/api';

export { SpanKind, SpanStatusCode };
export type { Attributes, AttributeValue, Context, Span, Tracer };

// ---------------------------------------------------------------------------------------------
// Attribute names. GenAI semantic conventions (gen_ai.*, still "development" status upstream, so
// spelled out here rather than imported from the incubating semconv entry point), the stable
// error.type, and Switchyard's own. NEVER put API keys, Authorization headers, key hashes or
// prompt/answer text in attributes: spans leave the process for whatever backend
// OTEL_EXPORTER_OTLP_ENDPOINT names, with no redaction on the way.
// ---------------------------------------------------------------------------------------------

/** `chat`, `generate_content`, `embeddings`, `text_completion` — see {@link GEN_AI_OPERATION}. */
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
/** The API family spoken upstream: `openai`, `anthropic`, `gcp.gemini` — see {@link genAiProviderName}. */
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
/** The model the client asked for (the catalog's public name). */
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
/** The model that answered (the upstream deployment's model, after fallbacks). */
export const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const ATTR_GEN_AI_REQUEST_STREAM = 'gen_ai.request.stream';
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
export const ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS = 'gen_ai.usage.reasoning.output_tokens';
/** Low-cardinality class of a failure: the GatewayError kind (`upstream_timeout`, …) or the exception type. */
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';
export const ATTR_SERVER_ADDRESS = 'server.address';
/** The client wire format: `chat-completions`, `responses`, `messages`, `generate-content`. */
export const ATTR_SWITCHYARD_FORMAT = 'switchyard.format';
/** The tenant id (an id from the catalog, never a key or key hash). Unbounded in traces, unlike the metric label. */
export const ATTR_SWITCHYARD_TENANT = 'switchyard.tenant';
export const ATTR_SWITCHYARD_REQUEST_ID = 'switchyard.request_id';
/** `provider/model` of the deployment an attempt went to, as in the `switchyard_circuit_state` label. */
export const ATTR_SWITCHYARD_DEPLOYMENT = 'switchyard.deployment';
/** 1 for the first upstream attempt of a request, 2 for the first retry or fallback, … */
export const ATTR_SWITCHYARD_ATTEMPT = 'switchyard.attempt';

/** Well-known `gen_ai.operation.name` values. */
export const GEN_AI_OPERATION = {
  chat: 'chat',
  generateContent: 'generate_content',
  embeddings: 'embeddings',
  textCompletion: 'text_completion',
} as const;

const PROVIDER_BY_PROTOCOL: Readonly<Record<string, string>> = {
  'chat-completions': 'openai',
  responses: 'openai',
  messages: 'anthropic',
  'generate-content': 'gcp.gemini',
};

/**
 * `gen_ai.provider.name` for an upstream protocol. The conventions name the API family the
 * client spoke ("best knowledge"), so any OpenAI-compatible server is `openai`. The built-in
 * simulator is `switchyard.simulator`; anything else passes through unchanged.
 */
export function genAiProviderName(protocol: string): string {
  if (protocol === 'simulator') return 'switchyard.simulator';
  return PROVIDER_BY_PROTOCOL[protocol] ?? protocol;
}

/** The span name the GenAI conventions ask for: `{operation} {model}`, or the operation alone. */
export function genAiSpanName(operation: string, model?: string): string {
  return model === undefined || model === '' ? operation : `${operation} ${model}`;
}

// ---------------------------------------------------------------------------------------------
// SDK start-up: only from OTEL_* variables, and only when an exporter destination is configured.
// ---------------------------------------------------------------------------------------------

type Env = Readonly<Record<string, string | undefined>>;

function listFromEnv(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== '' && item !== 'null');
}

function nonEmpty(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}

/**
 * Whether the environment asks for traces to be exported. False, and no SDK is installed, unless:
 * - `OTEL_SDK_DISABLED` is not `true`, and `OTEL_TRACES_EXPORTER` is not `none`; and
 * - an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`,
 *   non-empty) for the default/`otlp` exporter, or `OTEL_TRACES_EXPORTER` explicitly names
 *   another exporter (`console`, `zipkin`), which has its own defaults.
 *
 * The SDK's own default — export to http://localhost:4318 when nothing is set — is deliberately
 * not followed: a gateway with no collector would retry exports forever for nothing. A collector
 * on localhost is `OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318`.
 */
export function isTracingConfigured(env: Env = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = listFromEnv(env.OTEL_TRACES_EXPORTER);
  // The SDK reads a lone `none` (or `none` first) as "no exporter".
  if (exporters[0] === 'none') return false;
  if (exporters.some((name) => name !== 'otlp' && name !== 'none')) return true;
  return nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) || nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/** Where the SDK's own diagnostics (export failures, bad settings) go: the process logger. */
export interface TracingLogger {
  error(object: object, message: string): void;
  warn(object: object, message: string): void;
  info(object: object, message: string): void;
  debug(object: object, message: string): void;
}

export interface TracingOptions {
  /**
   * `service.name` of the spans unless `OTEL_SERVICE_NAME` (or `service.name` in
   * `OTEL_RESOURCE_ATTRIBUTES`) says otherwise; also the tracer's scope name.
   */
  serviceName: string;
  /** Receives the SDK's warnings and errors (unless `OTEL_LOG_LEVEL` sends them to the console). */
  logger?: TracingLogger;
}

export interface Tracing {
  /** Spans from this tracer go to the exporter when `enabled`; otherwise they are the API's no-ops. */
  readonly tracer: Tracer;
  /** Whether an SDK is installed (see {@link isTracingConfigured}). */
  readonly enabled: boolean;
  /** Flushes and stops the SDK (once the last user of a shared SDK shuts down). Idempotent. */
  shutdown(): Promise<void>;
}

interface Installed {
  refs: number;
  ready: Promise<{ shutdown(): Promise<void> }>;
}

/** One SDK per process: the OpenTelemetry API's providers are process globals. */
let installed: Installed | undefined;
/** The last SDK's shutdown: a new SDK registers its globals only after the old one let go of them. */
let stopping: Promise<void> = Promise.resolve();

function diagLogger(logger: TracingLogger): DiagLogger {
  const forward =
    (level: 'error' | 'warn' | 'info' | 'debug') =>
    (message: string, ...args: unknown[]): void =>
      logger[level]({ component: 'opentelemetry', ...(args.length === 0 ? {} : { details: args.map(String) }) }, message);
  return { error: forward('error'), warn: forward('warn'), info: forward('info'), debug: forward('debug'), verbose: forward('debug') };
}

function serviceNameFromEnv(env: Env): boolean {
  return nonEmpty(env.OTEL_SERVICE_NAME) || /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
}

async function installSdk(options: TracingOptions): Promise<{ shutdown(): Promise<void> }> {
  await stopping;
  if (options.logger !== undefined && !nonEmpty(process.env.OTEL_LOG_LEVEL)) {
    diag.setLogger(diagLogger(options.logger), { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  }
  // Imported here, not at the top: the SDK and its exporters cost ~0.5 s and ~70 MB to load,
  // which a process with tracing off never pays.
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({
    ...(serviceNameFromEnv(process.env) ? {} : { serviceName: options.serviceName }),
    // Traces only: metrics are prom-client's /metrics and logs are pino's stdout. Empty lists
    // stop the SDK from building OTLP metric and log exporters from its defaults.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  return sdk;
}

/** Undoes the global registrations so a later {@link startTracing} (tests, restarts) starts clean. */
function unregisterGlobals(): void {
  trace.disable();
  logs.disable();
  propagation.disable();
  context.disable();
  diag.disable();
}

/**
 * The tracer of a process with tracing off: the API's no-op, from a provider of its own, so that
 * it stays a no-op for good (a ProxyTracer from the global provider would start delegating if
 * anything registered an SDK later) and {@link withSpan} can recognise it and skip span work.
 */
const DISABLED_TRACER: Tracer = new ProxyTracerProvider().getTracer('switchyard-tracing-off');

/** The span {@link withSpan} hands to its function when tracing is off: the API's no-op span, stateless, shared. */
const NOOP_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * Starts tracing for this process. With no exporter configured (see {@link isTracingConfigured})
 * nothing is installed or even loaded: `tracer` is the API's no-op tracer, whose spans cost a
 * function call, and the propagation helpers read and write no headers. Otherwise the
 * OpenTelemetry Node SDK is started from the standard OTEL_* variables alone — exporter and
 * protocol (`OTEL_TRACES_EXPORTER`, `OTEL_EXPORTER_OTLP_*`, default http/protobuf), sampler
 * (`OTEL_TRACES_SAMPLER[_ARG]`), batching (`OTEL_BSP_*`), propagators (`OTEL_PROPAGATORS`,
 * default W3C tracecontext + baggage), resource (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`).
 *
 * Several callers in one process (`switchyard all`) share one SDK; it stops when the last
 * handle is shut down. A failure to start the SDK is logged and leaves tracing off: telemetry
 * never keeps the gateway from serving.
 */
export async function startTracing(options: TracingOptions): Promise<Tracing> {
  const disabled: Tracing = { tracer: DISABLED_TRACER, enabled: false, shutdown: async () => {} };
  if (!isTracingConfigured()) return disabled;

  const current = installed ?? (installed = { refs: 0, ready: installSdk(options) });
  current.refs++;
  let sdk: { shutdown(): Promise<void> };
  try {
    sdk = await current.ready;
  } catch (error) {
    current.refs--;
    if (installed === current) installed = undefined;
    if (current.refs === 0) unregisterGlobals();
    options.logger?.error({ err: error }, 'could not start OpenTelemetry tracing; spans are not exported');
    return disabled;
  }

  let open = true;
  return {
    tracer: trace.getTracer(options.serviceName),
    enabled: true,
    shutdown: async () => {
      if (!open) return;
      open = false;
      current.refs--;
      if (current.refs > 0) return;
      if (installed === current) installed = undefined;
      const done = sdk.shutdown().finally(unregisterGlobals);
      stopping = done.catch(() => undefined);
      await done;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// W3C trace context over plain header records (Node's IncomingHttpHeaders, undici's headers).
// ---------------------------------------------------------------------------------------------

/** Node's `IncomingHttpHeaders` and plain `Record<string, string>` alike. */
export type HeaderRecord = Record<string, string | string[] | undefined>;

const headerGetter: TextMapGetter<HeaderRecord> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const exact = carrier[key];
    if (exact !== undefined) return exact;
    // Node lower-cases incoming names; hand-built records may not.
    const lower = key.toLowerCase();
    for (const name of Object.keys(carrier)) {
      if (name.toLowerCase() === lower) return carrier[name];
    }
    return undefined;
  },
};

const headerSetter: TextMapSetter<HeaderRecord> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/**
 * Writes the propagation headers of `ctx` (`traceparent`, `tracestate`, and `baggage` unless
 * `OTEL_PROPAGATORS` says otherwise) into `headers`, and returns `headers`. Writes nothing when
 * tracing is off.
 */
export function injectTraceHeaders<T extends HeaderRecord>(ctx: Context, headers: T): T {
  propagation.inject(ctx, headers, headerSetter);
  return headers;
}

/**
 * The context carried by incoming `headers` (names in any case), on top of the active context:
 * pass it as `parent` to {@link withSpan} for a server span. With tracing off, the active context.
 */
export function extractTraceContext(headers: HeaderRecord): Context {
  return propagation.extract(context.active(), headers, headerGetter);
}

/** The active context (to inject into an outgoing request inside a span). */
export function activeContext(): Context {
  return context.active();
}

/**
 * `{ trace_id, span_id }` of the active span for a log line (e.g. as pino's `mixin`), so logs
 * and traces join on the ids; `{}` outside a span, and always with tracing off (a context
 * lookup, no allocation of ids). Snake case as in the OpenTelemetry log data model, which log
 * backends (Loki derived fields, Elastic) recognise.
 */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getSpanContext(context.active());
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

// ---------------------------------------------------------------------------------------------
// Spans around async work.
// ---------------------------------------------------------------------------------------------

/** Attributes where `undefined` means "not known": such entries are left off the span. */
export type SpanAttributesInput = Readonly<Record<string, AttributeValue | undefined>>;

function definedAttributes(attributes: SpanAttributesInput): Attributes {
  const result: Attributes = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) result[key] = value;
  }
  return result;
}

/**
 * `error.type` for a failure: a string `kind` (GatewayError's `upstream_timeout`,
 * `rate_limited`, …), else the exception's name, else `_OTHER`.
 */
export function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const kind = (error as { kind?: unknown }).kind;
    if (typeof kind === 'string' && kind !== '') return kind;
    if (error instanceof Error && error.name !== '') return error.name;
  }
  return '_OTHER';
}

/** Marks `span` failed: `error.type`, status ERROR, and the exception as an event. */
export function recordSpanError(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  span.setAttribute(ATTR_ERROR_TYPE, errorType(error));
  if (error instanceof Error) {
    span.recordException(error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  } else {
    span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
  }
}

export interface WithSpanOptions {
  /** SERVER for ingress/router request spans, CLIENT for upstream and ingress → router calls. */
  kind?: SpanKind;
  /** The parent (e.g. {@link extractTraceContext} of the request headers); the active context by default. */
  parent?: Context;
}

/**
 * Runs `fn` inside a new span (the active span for everything `fn` awaits) and ends the span
 * when `fn` settles. A throw or rejection marks the span failed ({@link recordSpanError}) and is
 * rethrown. For a stream, return only once the last byte is written.
 *
 * With tracing off (the tracer {@link startTracing} hands out then), `fn` is called directly
 * with a shared no-op span: no span, attribute copy or context switch per call (what the API's
 * no-op path cost was ~1% of a request's CPU). The active context stays the caller's, which
 * with tracing off holds no span either way.
 */
export function withSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: SpanAttributesInput,
  fn: (span: Span) => Promise<T> | T,
  options: WithSpanOptions = {},
): Promise<T> {
  if (tracer === DISABLED_TRACER) {
    try {
      return Promise.resolve(fn(NOOP_SPAN));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }
  return withRecordedSpan(tracer, name, attributes, fn, options);
}

async function withRecordedSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: SpanAttributesInput,
  fn: (span: Span) => Promise<T> | T,
  options: WithSpanOptions,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: definedAttributes(attributes) }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), fn, undefined, span);
  } catch (error) {
    recordSpanError(span, error);
    throw error;
  } finally {
    span.end();
  }
}
