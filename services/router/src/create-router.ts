import { GatewayError, type CanonicalResponse } from '@switchyard/canonical';
import type { CatalogSource, LimitSet } from '@switchyard/catalog-client';
import type { Limiter } from '@switchyard/ratelimit';
import { toGatewayError, wireFormats, writeError, type AnswerWriter } from '@switchyard/formats';
import { resolveEndpoint, UpstreamClient, type UpstreamEndpoint } from '@switchyard/providers';
import type { RouteHandler, RouteRequest } from '@switchyard/router-client';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_REQUEST_STREAM,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SWITCHYARD_FORMAT,
  ATTR_SWITCHYARD_REQUEST_ID,
  ATTR_SWITCHYARD_TENANT,
  createAccessLog,
  extractTraceContext,
  genAiProviderName,
  recordSpanError,
  SpanKind,
  withSpan,
  type Logger,
  type Metrics,
  type Span,
  type Tracer,
} from '@switchyard/telemetry';
import { computeCostMicros, type UsageEvent, type UsageSink } from '@switchyard/usage-events';
import { ActiveStreams } from './pipeline/active-streams.ts';
import { KeepAlives } from './pipeline/keep-alives.ts';
import { DeploymentHealth } from './routing/deployment-health.ts';
import type { UpstreamTimeouts } from './pipeline/call-upstream.ts';
import type { Exchange, ExchangeOutcome } from './pipeline/exchange.ts';
import { prepareRequest } from './pipeline/prepare-exchange.ts';
import { rememberResponse } from './pipeline/responses-state.ts';
import { serveCountTokens } from './pipeline/serve-count-tokens.ts';
import { serveEmbeddings } from './pipeline/serve-embeddings.ts';
import { serveGenerate } from './pipeline/serve-generate.ts';
import { serveStoredResponse } from './pipeline/serve-stored-response.ts';
import { createMemoryResponseStore, createMemorySignatureStore, type ResponseStore, type SignatureStore } from './responses-store/index.ts';
import { collectCallSignatures } from './pipeline/signature-continuity.ts';

export interface RouterOptions {
  catalog: CatalogSource;
  metrics: Metrics;
  logger: Logger;
  /** URL of the built-in simulator, for `protocol: simulator` providers. */
  simulatorUrl?: string;
  timeouts?: Partial<UpstreamTimeouts>;
  /** Where Responses state lives; in memory when omitted (single instance). */
  responseStore?: ResponseStore;
  /** Where vendor signatures of tool calls wait for the next turn; in memory when omitted. */
  signatureStore?: SignatureStore;
  /** Charged with the real token usage once an answer ends (admission reserved an estimate). */
  limiter?: Limiter;
  /** The keep-alive period: a stream quiet for one to two of them gets a keep-alive (default 15 s). */
  keepAliveMs?: number;
  /** Receives one usage event per answered request (BullMQ in production, in process without Redis). */
  usageSink?: UsageSink;
  /** Spans for the routed request and each upstream attempt (the no-op tracer when tracing is off). */
  tracer: Tracer;
}

export interface Router {
  handle: RouteHandler;
  /** Ends every stream still open with its format's error event (the end of a shutdown grace period). */
  terminateStreams(): void;
  close(): Promise<void>;
}

/** Generous defaults for long LLM calls: reasoning models can think for minutes before a byte. */
const DEFAULT_TIMEOUTS: UpstreamTimeouts = { headersMs: 300_000, idleMs: 300_000, totalMs: 1_800_000 };

export function createRouter(options: RouterOptions): Router {
  const { catalog, metrics, logger, tracer } = options;
  const writeAccessLine = createAccessLog(logger);
  const upstream = new UpstreamClient();
  const responseStore = options.responseStore ?? createMemoryResponseStore();
  const signatureStore = options.signatureStore ?? createMemorySignatureStore();
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const health = new DeploymentHealth({
    onStateChange: (key, state) => metrics.circuitState.set({ deployment: key }, state),
  });

  // Endpoints are resolved once per catalog version, not per request.
  let endpoints = { version: -1, byProvider: new Map<string, UpstreamEndpoint>() };
  const endpointOf = (providerId: string): UpstreamEndpoint => {
    const index = catalog.current();
    if (endpoints.version !== index.version) endpoints = { version: index.version, byProvider: new Map() };
    let endpoint = endpoints.byProvider.get(providerId);
    if (endpoint === undefined) {
      const provider = index.snapshot.providers[providerId];
      if (provider === undefined) throw new GatewayError('internal', `Deployment refers to unknown provider ${providerId}.`);
      endpoint = resolveEndpoint(provider, options.simulatorUrl);
      endpoints.byProvider.set(providerId, endpoint);
    }
    return endpoint;
  };
  const activeStreams = new ActiveStreams();
  const keepAlives = new KeepAlives(options.keepAliveMs ?? 15_000);
  const dependencies = {
    activeStreams,
    usagelessDeployments: new Set<string>(),
    upstream,
    timeouts,
    health,
    keepAlives,
    endpointOf,
    onTranslation: (pair: string, seconds: number) => metrics.translationDuration.observe({ pair }, seconds),
    onRetry: (providerId: string) => metrics.retries.inc({ provider: providerId }),
    onFallback: (model: string) => metrics.fallbacks.inc({ model: metrics.model(model) }),
    onAttempt: (provider: string, seconds: number, errorKind: string | undefined) => {
      metrics.upstreamDuration.observe({ provider }, seconds);
      if (errorKind !== undefined) metrics.upstreamErrors.inc({ provider, kind: errorKind });
    },
    onAnswerBroken: (provider: string, errorKind: string) => metrics.upstreamErrors.inc({ provider, kind: errorKind }),
    tracer,
  };

  const handle: RouteHandler = (request, response) =>
    withSpan(
      tracer,
      `switchyard ${request.route.operation}`,
      {
        [ATTR_SWITCHYARD_FORMAT]: request.route.format,
        [ATTR_SWITCHYARD_TENANT]: request.identity.tenantId,
        [ATTR_SWITCHYARD_REQUEST_ID]: request.identity.requestId,
      },
      (span) => route(request, response, span),
      { kind: SpanKind.SERVER, parent: extractTraceContext(request.headers) },
    );

  const route = async (request: RouteRequest, response: AnswerWriter, span: Span): Promise<void> => {
    const clientFormat = wireFormats[request.route.format];
    const requestId = request.identity.requestId;
    metrics.inflight.inc({ target: 'router' });
    let exchange: Exchange | undefined;
    let outcome: ExchangeOutcome | undefined;
    // Known once the body is decoded, so a failed request is still counted under its model.
    let model: string | undefined;
    let stream = false;
    let failure: GatewayError | undefined;
    let usageEmitted = false;
    /** Before an answer's last byte: state for the client's next turn, then its usage event. */
    const settle = async (settled: Exchange | undefined, answered: ExchangeOutcome): Promise<void> => {
      if (settled !== undefined && answered.answer !== undefined && answered.status === 200) await keepAnswerState(settled, answered.answer, requestId);
      usageEmitted = true;
      await emitUsage(request, settled, answered);
    };
    try {
      const index = catalog.current();
      switch (request.route.operation) {
        case 'generate': {
          const prepared = await prepareRequest(request, index, responseStore, signatureStore);
          model = prepared.canonical.model;
          stream = prepared.canonical.stream;
          const served = await serveGenerate(dependencies, prepared, index, response, settle);
          exchange = served.exchange;
          outcome = served;
          break;
        }
        case 'response-get':
        case 'response-delete':
          outcome = await serveStoredResponse(responseStore, request, response);
          break;
        case 'embeddings':
          outcome = await serveEmbeddings(dependencies, request, index, endpointOf, response, (answered) => settle(undefined, answered));
          break;
        case 'count-tokens':
          outcome = await serveCountTokens(request, index, response);
          break;
        default:
          throw new GatewayError('not_found', `Unsupported operation ${request.route.operation}.`);
      }
    } catch (error) {
      failure = toGatewayError(error);
      if (failure.kind === 'internal') logger.error({ err: failure.cause ?? failure, requestId }, 'request failed');
      writeError(response, clientFormat, failure, requestId);
      outcome = { status: failure.status, usage: { inputTokens: 0, outputTokens: 0 }, stream, ...(model === undefined ? {} : { model }) };
    } finally {
      metrics.inflight.dec({ target: 'router' });
    }
    record(request, exchange, outcome);
    reconcile(request, outcome);
    if (!usageEmitted) void emitUsage(request, exchange, outcome);
    describeSpan(span, exchange, outcome, failure);
  };

  /** What the client's next turn needs from this answer, stored before the client can send it. */
  async function keepAnswerState(exchange: Exchange, answer: CanonicalResponse, requestId: string): Promise<void> {
    if (!exchange.sameFormat) {
      // The client's format cannot carry these back; keep them for its next turn.
      const signatures = collectCallSignatures(answer);
      if (signatures.size > 0) {
        await signatureStore
          .save(exchange.request.identity.tenantId, signatures)
          .catch((error: unknown) => logger.warn({ err: error, requestId }, 'could not keep tool-call signatures'));
      }
    }
    if (exchange.clientFormat.id === 'responses') {
      await rememberResponse(responseStore, exchange, answer).catch((error: unknown) => logger.warn({ err: error, requestId }, 'could not store response'));
    }
  }

  /** GenAI semantic-convention attributes, once the outcome is known. Never a key, only ids. */
  function describeSpan(span: Span, exchange: Exchange | undefined, outcome: ExchangeOutcome, failure: GatewayError | undefined): void {
    // With tracing off the span is a shared no-op: its name and attributes would be built for nothing.
    if (!span.isRecording()) return;
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, outcome.status);
    // Server-side failures are span errors; a client's own mistake (4xx) is not (OTel HTTP conventions).
    if (failure !== undefined && failure.status >= 500) recordSpanError(span, failure);
    else if (outcome.status >= 400) span.setAttribute(ATTR_ERROR_TYPE, failure?.kind ?? String(outcome.status));
    if (exchange === undefined) return;
    const operation = exchange.canonical.messages.length > 0 ? 'chat' : 'generate_content';
    span.updateName(`${operation} ${exchange.canonical.model}`);
    span.setAttributes({
      [ATTR_GEN_AI_OPERATION_NAME]: operation,
      [ATTR_GEN_AI_PROVIDER_NAME]: genAiProviderName(exchange.upstreamFormat.id),
      [ATTR_GEN_AI_REQUEST_MODEL]: exchange.canonical.model,
      [ATTR_GEN_AI_REQUEST_STREAM]: exchange.canonical.stream,
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: outcome.usage.inputTokens,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: outcome.usage.outputTokens,
    });
    const responseModel = outcome.answer?.model ?? outcome.responseModel;
    if (responseModel !== undefined) span.setAttribute(ATTR_GEN_AI_RESPONSE_MODEL, responseModel);
  }

  /**
   * One usage event per request that reached a model operation, answered or failed (issue 6).
   * Settles once the event is durable (or the queue is unreachable); never rejects.
   */
  function emitUsage(request: RouteRequest, exchange: Exchange | undefined, outcome: ExchangeOutcome): Promise<void> {
    const sink = options.usageSink;
    if (sink === undefined || (request.route.operation !== 'generate' && request.route.operation !== 'embeddings')) return Promise.resolve();
    const model = exchange?.canonical.model ?? outcome.model ?? request.route.model ?? 'unknown';
    const usage = outcome.usage;
    const { identity } = request;
    // Optional fields are set when present rather than spread from conditional literals: each of
    // those spreads built and copied a throwaway object, and this runs once per request.
    const event: UsageEvent = {
      requestId: identity.requestId,
      tenantId: identity.tenantId,
      keyId: identity.keyId,
      format: request.route.format,
      model,
      status: outcome.status,
      stream: exchange?.canonical.stream ?? outcome.stream === true,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      estimated: usage.estimated === true,
      latencyMs: performance.now() - request.receivedAt,
      occurredAt: Date.now(),
    };
    if (usage.cacheReadTokens !== undefined) event.cachedTokens = usage.cacheReadTokens;
    if (usage.reasoningTokens !== undefined) event.reasoningTokens = usage.reasoningTokens;
    if (exchange !== undefined) {
      event.upstreamProtocol = exchange.upstreamFormat.id;
      event.provider = exchange.endpoint.providerId;
      event.upstreamModel = exchange.deployment.model;
    }
    if (outcome.firstByteAt !== undefined) event.timeToFirstTokenMs = outcome.firstByteAt - request.receivedAt;
    const prices = catalog.current().model(model)?.prices;
    if (prices !== undefined) event.costMicros = computeCostMicros(event, prices);
    return sink.emit(event);
  }

  /** Corrects the TPM window and budgets from the admission estimate to the real usage, streams included. */
  function reconcile(request: RouteRequest, outcome: ExchangeOutcome): void {
    const limiter = options.limiter;
    if (limiter === undefined) return;
    const index = catalog.current();
    const { tenantId, keyId } = request.identity;
    const tenant = index.tenant(tenantId);
    const key = index.keyOf(tenantId, keyId);
    if (tenant === undefined || key === undefined || !(countsTokens(tenant.limits) || countsTokens(key.limits))) return;
    const deltaTokens = outcome.usage.inputTokens + outcome.usage.outputTokens - request.estimatedTokens;
    if (deltaTokens === 0) return;
    limiter
      .reconcile({
        tenantId,
        keyId,
        tenantLimits: tenant.limits,
        keyLimits: key.limits,
        deltaTokens,
        ...(request.admittedAt === undefined ? {} : { admittedAt: request.admittedAt }),
      })
      .catch((error: unknown) => logger.warn({ err: error, requestId: request.identity.requestId }, 'token reconciliation failed'));
  }

  function record(request: RouteRequest, exchange: Exchange | undefined, outcome: ExchangeOutcome): void {
    const format = request.route.format;
    const model = metrics.model(exchange?.canonical.model ?? 'unknown');
    const stream = exchange?.canonical.stream === true ? 'true' : 'false';
    const upstreamProtocol = exchange?.upstreamFormat.id ?? 'none';
    const seconds = (performance.now() - request.receivedAt) / 1000;
    // One access line per request, written in batches off the event loop; LOG_LEVEL=warn turns it off.
    writeAccessLine({
      requestId: request.identity.requestId,
      tenant: request.identity.tenantId,
      format,
      model: exchange?.canonical.model,
      upstream: exchange?.endpoint.providerId,
      status: outcome.status,
      stream: exchange?.canonical.stream === true,
      durationMs: Math.round(seconds * 1000),
    });
    const statusClass = metrics.statusClass(outcome.status);
    metrics.requests.inc({ format, model, status_class: statusClass });
    metrics.requestDuration.observe({ format, upstream: upstreamProtocol, model, stream }, seconds);
    if (outcome.firstByteAt !== undefined) {
      metrics.timeToFirstToken.observe({ format, upstream: upstreamProtocol, model, stream }, (outcome.firstByteAt - request.receivedAt) / 1000);
    }
    const tenant = metrics.tenant(request.identity.tenantId);
    metrics.tenantRequests.inc({ tenant, status_class: statusClass });
    const usage = outcome.usage;
    if (usage.inputTokens > 0) metrics.tokens.inc({ format, model, tenant, kind: 'input' }, usage.inputTokens);
    if (usage.outputTokens > 0) metrics.tokens.inc({ format, model, tenant, kind: 'output' }, usage.outputTokens);
    if ((usage.cacheReadTokens ?? 0) > 0) metrics.tokens.inc({ format, model, tenant, kind: 'cached' }, usage.cacheReadTokens ?? 0);
    if ((usage.reasoningTokens ?? 0) > 0) metrics.tokens.inc({ format, model, tenant, kind: 'reasoning' }, usage.reasoningTokens ?? 0);
  }

  return {
    handle,
    terminateStreams: () =>
      activeStreams.terminateAll(new GatewayError('unavailable', 'The gateway is shutting down; the stream was ended before completion.')),
    close: async () => {
      keepAlives.close();
      await upstream.close();
      await responseStore.close();
      await signatureStore.close();
    },
  };
}

function countsTokens(limits: LimitSet): boolean {
  return limits.tpm !== undefined || limits.dailyTokens !== undefined || limits.monthlyTokens !== undefined;
}
