import { errorKindForStatus, GatewayError, type CanonicalUsage } from '@switchyard/canonical';
import type { CatalogIndex, ModelRecord } from '@switchyard/catalog-client';
import type { ResponseSummary, AnswerWriter } from '@switchyard/formats';
import type { UpstreamClient, UpstreamEndpoint, UpstreamResponse } from '@switchyard/providers';
import { backoffDelay, DEFAULT_RETRY, sleep } from '../routing/backoff.ts';
import { candidateModels } from '../routing/candidate-models.ts';
import { chooseDeployment } from '../routing/choose-deployment.ts';
import { deploymentKey, type CircuitPolicy, type DeploymentHealth } from '../routing/deployment-health.ts';
import type { ActiveStreams } from './active-streams.ts';
import type { KeepAlives } from './keep-alives.ts';
import { callUpstream, parseAnswerBody, readErrorBody, transportError, type UpstreamTimeouts } from './call-upstream.ts';
import type { Exchange, ExchangeOutcome } from './exchange.ts';
import { estimateRequestTokens, estimateTextTokens } from './estimate-tokens.ts';
import { bindExchange, type PreparedRequest } from './prepare-exchange.ts';
import { generatedText } from './accumulate-stream.ts';
import { clientResponseContext } from './response-context.ts';
import { keepsResponse } from './responses-state.ts';
import { streamAnswer, type StreamResult } from './stream-answer.ts';
import {
  activeContext,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SWITCHYARD_ATTEMPT,
  ATTR_SWITCHYARD_DEPLOYMENT,
  injectTraceHeaders,
  recordSpanError,
  SpanKind,
  withSpan,
  type Tracer,
} from '@switchyard/telemetry';

export interface GenerateDependencies {
  upstream: UpstreamClient;
  timeouts: UpstreamTimeouts;
  health: DeploymentHealth;
  keepAlives: KeepAlives;
  activeStreams: ActiveStreams;
  /** Deployments seen to stream without usage: their same-format streams are decoded, not just watched. */
  usagelessDeployments: Set<string>;
  endpointOf(providerId: string): UpstreamEndpoint;
  /** Records time spent translating, by `client→upstream` pair. */
  onTranslation(pair: string, seconds: number): void;
  onRetry(providerId: string): void;
  onFallback(model: string): void;
  /** One upstream attempt ended (response headers or failure): its duration, and its error kind if it failed. */
  onAttempt(providerId: string, seconds: number, errorKind: string | undefined): void;
  /** An attempt answered 200, and then the upstream broke the answer. */
  onAnswerBroken(providerId: string, errorKind: string): void;
  tracer: Tracer;
}

/** Statuses worth another attempt elsewhere: timeouts, conflicts, rate limits, server errors, overload. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Called with an answer's outcome before its last byte leaves: what it awaits (the usage event,
 * stored state for the next turn) is durable by the time the client sees the answer end.
 */
export type SettleAnswer = (exchange: Exchange, outcome: ExchangeOutcome) => Promise<void>;

/**
 * One generate call with retries and fallbacks, all before the first byte reaches the client:
 * each attempt picks a deployment (tiers, strategy, circuit breakers), retryable failures move
 * on to another deployment after a jittered backoff, and when the model is exhausted its
 * fallback models are tried in order, whatever protocol they speak. Once an upstream answers
 * 200 the answer is relayed and nothing is retried.
 */
export async function serveGenerate(
  dependencies: GenerateDependencies,
  prepared: PreparedRequest,
  index: CatalogIndex,
  response: AnswerWriter,
  settle: SettleAnswer,
): Promise<ExchangeOutcome & { exchange?: Exchange }> {
  const { request } = prepared;
  const deadline = performance.now() + (prepared.model.timeouts?.totalMs ?? dependencies.timeouts.totalMs);
  let lastError: GatewayError | undefined;
  let cooling: { keys: string[]; wait: number } | undefined;
  for (const model of candidateModels(prepared.model, index, prepared.tenant, prepared.key)) {
    if (model !== prepared.model) dependencies.onFallback(prepared.model.name);
    const policy = model.retry ?? DEFAULT_RETRY;
    const circuit = circuitPolicy(model);
    const failed = new Set<string>();
    for (let attempt = 0; attempt <= policy.attempts; attempt++) {
      if (attempt > 0) await sleep(backoffDelay(policy, attempt - 1), request.signal);
      if (request.signal.aborted) throw new GatewayError('client_closed', 'Client closed the request.');
      if (performance.now() >= deadline) throw lastError ?? new GatewayError('upstream_timeout', 'The request deadline passed before an upstream answered.');
      let deployment = chooseDeployment(model, dependencies.health, failed);
      if (deployment === undefined && failed.size > 0) {
        // Every deployment failed once: another round may still succeed (transient errors).
        failed.clear();
        deployment = chooseDeployment(model, dependencies.health, failed);
      }
      if (deployment === undefined) {
        // All cooling down: wait for the first to reopen if that fits the retry budget, else fall back.
        const keys = model.deployments.map((candidate) => deploymentKey(candidate.provider, candidate.model));
        const wait = dependencies.health.availableAt(keys) - Date.now();
        cooling = { keys, wait };
        if (wait > policy.maxBackoffMs || attempt === policy.attempts) break;
        await sleep(wait, request.signal);
        continue;
      }
      const exchange = bindExchange(prepared, model, deployment, dependencies.endpointOf(deployment.provider));
      const key = deploymentKey(deployment.provider, deployment.model);
      if (attempt > 0) dependencies.onRetry(exchange.endpoint.providerId);
      const result = await withSpan(
        dependencies.tracer,
        `POST ${exchange.endpoint.providerId}`,
        { [ATTR_SERVER_ADDRESS]: exchange.endpoint.origin, [ATTR_SWITCHYARD_DEPLOYMENT]: key, [ATTR_SWITCHYARD_ATTEMPT]: attempt + 1 },
        async (span) => {
          const started = performance.now();
          const attempted = await attemptOnce(dependencies, exchange, prepared, key, deadline, circuit);
          const errorKind =
            attempted.kind === 'retry' ? attempted.error.kind : attempted.upstream.statusCode >= 400 ? errorKindForStatus(attempted.upstream.statusCode) : undefined;
          dependencies.onAttempt(exchange.endpoint.providerId, (performance.now() - started) / 1000, errorKind);
          span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, attempted.kind === 'answer' ? attempted.upstream.statusCode : attempted.error.status);
          if (attempted.kind === 'retry') recordSpanError(span, attempted.error);
          else if (attempted.upstream.statusCode >= 400) span.setAttribute(ATTR_ERROR_TYPE, String(attempted.upstream.statusCode));
          return attempted;
        },
        { kind: SpanKind.CLIENT },
      );
      if (result.kind === 'retry') {
        lastError = result.error;
        failed.add(key);
        continue;
      }
      if (model !== prepared.model) exchange.fallbackModel = model.name;
      const outcome = await answer(dependencies, exchange, result.upstream, response, settle, { key, circuit });
      return { ...outcome, exchange };
    }
  }
  throw lastError ?? exhausted(prepared.model.name, cooling, dependencies.health);
}

/** Nothing was even tried: every deployment is cooling down. Say when to come back. */
function exhausted(model: string, cooling: { keys: string[]; wait: number } | undefined, health: DeploymentHealth): GatewayError {
  const retryAfterSeconds = Math.max(1, Math.ceil((cooling?.wait ?? 1000) / 1000));
  if (cooling !== undefined && health.allRateLimited(cooling.keys)) {
    return new GatewayError('rate_limited', `Every deployment of '${model}' is rate limited upstream.`, { retryAfterSeconds });
  }
  return new GatewayError('unavailable', `No deployment of '${model}' is available right now.`, { retryAfterSeconds });
}

function circuitPolicy(model: ModelRecord): CircuitPolicy {
  const breaker = model.circuitBreaker;
  return breaker === undefined ? {} : { failureThreshold: breaker.failures, cooldownMs: breaker.cooldownMs };
}

type AttemptResult = { kind: 'answer'; upstream: UpstreamResponse } | { kind: 'retry'; error: GatewayError };

/**
 * Sends one attempt. A retryable failure is reported back (and counted against the
 * deployment's health); anything else — success, or an error the client must see — is
 * returned for answering. A failure the client caused (it went away) is thrown.
 */
async function attemptOnce(
  dependencies: GenerateDependencies,
  exchange: Exchange,
  prepared: PreparedRequest,
  key: string,
  deadline: number,
  circuit: CircuitPolicy,
): Promise<AttemptResult> {
  const { health } = dependencies;
  const { upstreamFormat, deployment, canonical, request } = exchange;
  const body = buildUpstreamBody(dependencies, exchange, prepared.clientBody);
  const extraHeaders: Record<string, string> = {};
  const beta = request.headers['anthropic-beta'];
  if (beta !== undefined && upstreamFormat.id === 'messages') extraHeaders['anthropic-beta'] = beta;
  // The upstream call continues the request's trace (W3C traceparent).
  injectTraceHeaders(activeContext(), extraHeaders);
  const timeouts = { ...dependencies.timeouts, ...exchange.timeouts };
  const remaining = Math.max(1, Math.floor(deadline - performance.now()));
  const started = performance.now();
  health.begin(key);
  let upstream: UpstreamResponse;
  try {
    upstream = await callUpstream({
      client: dependencies.upstream,
      endpoint: exchange.endpoint,
      format: upstreamFormat,
      path: upstreamFormat.upstream.generatePath(deployment.model, canonical.stream),
      body,
      extraHeaders,
      signal: request.signal,
      timeouts: {
        ...timeouts,
        headersMs: Math.min(timeouts.headersMs, canonical.stream ? remaining : Math.min(remaining, timeouts.attemptMs ?? remaining)),
      },
    });
  } catch (error) {
    const failure = GatewayError.isInstance(error) ? error : transportError(error, request.signal);
    if (failure.kind === 'client_closed') {
      health.finish(key);
      throw failure;
    }
    health.fail(key, {}, circuit);
    return { kind: 'retry', error: failure };
  }
  if (upstream.statusCode >= 400 && isRetryableStatus(upstream.statusCode)) {
    const error = upstreamError(exchange, upstream, await readErrorBody(upstream));
    const retryAfterMs = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
    health.fail(key, { rateLimited: upstream.statusCode === 429, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) }, circuit);
    return { kind: 'retry', error };
  }
  if (upstream.statusCode >= 400) health.finish(key);
  else health.succeed(key, performance.now() - started);
  return { kind: 'answer', upstream };
}

/** The deployment that answered, as its health is kept: its key and its model's circuit policy. */
interface AnsweringDeployment {
  key: string;
  circuit: CircuitPolicy;
}

/**
 * What a relayed 200 showed of its deployment once read to the end: a whole answer clears its
 * failures; one the upstream broke (cut off, not JSON, an error event mid-stream) counts against
 * its circuit and in switchyard_upstream_errors_total, as a failed attempt does.
 */
function judgeAnswer(dependencies: GenerateDependencies, exchange: Exchange, deployment: AnsweringDeployment, failure: GatewayError | undefined): void {
  if (failure === undefined) return dependencies.health.completed(deployment.key);
  dependencies.health.broke(deployment.key, deployment.circuit);
  dependencies.onAnswerBroken(exchange.endpoint.providerId, failure.kind);
}

/** Relays the upstream's answer (or its non-retryable error) in the client's format. */
async function answer(
  dependencies: GenerateDependencies,
  exchange: Exchange,
  upstream: UpstreamResponse,
  response: AnswerWriter,
  settle: SettleAnswer,
  deployment: AnsweringDeployment,
): Promise<ExchangeOutcome> {
  const { canonical, clientFormat, upstreamFormat, sameFormat, request } = exchange;
  const requestId = request.identity.requestId;
  const headers: Record<string, string> = { 'x-request-id': requestId };
  if (exchange.warnings.length > 0) headers['x-switchyard-warning'] = exchange.warnings.join('; ').replace(/[^\x20-\x7e]/g, '?');
  if (exchange.fallbackModel !== undefined) headers['x-switchyard-fallback-model'] = exchange.fallbackModel;

  if (upstream.statusCode >= 400) return relayUpstreamError(exchange, upstream, response, headers);

  if (canonical.stream) {
    let outcome: ExchangeOutcome | undefined;
    // Relayed untouched and not kept: watch it rather than decode it, unless this deployment
    // is known to send no usage (then the decoded text is what the estimate counts).
    const watchOnly = sameFormat && !keepsResponse(exchange) && !dependencies.usagelessDeployments.has(deployment.key);
    const streamUsage = async (result: StreamResult): Promise<CanonicalUsage> => {
      if (result.usage !== undefined && result.usage.estimated !== true) return result.usage;
      if (!watchOnly) return estimateUsage(exchange, result.generatedText());
      // A whole stream without usage: decode this deployment's next streams to estimate them
      // properly; this one is estimated at about a token per event.
      if (result.error === undefined) dependencies.usagelessDeployments.add(deployment.key);
      return { inputTokens: await estimateRequestTokens(canonical), outputTokens: result.events, estimated: true };
    };
    const streamOutcome = async (result: StreamResult): Promise<ExchangeOutcome> => {
      return {
        status: result.error === undefined ? 200 : result.error.status,
        usage: await streamUsage(result),
        ...(result.firstByteAt === undefined ? {} : { firstByteAt: result.firstByteAt }),
        ...(result.answer === undefined ? {} : { answer: result.answer }),
      };
    };
    const result = await streamAnswer(exchange, upstream, response, headers, {
      keepAlives: dependencies.keepAlives,
      activeStreams: dependencies.activeStreams,
      watchOnly,
      beforeEnd: async (ended) => {
        outcome = await streamOutcome(ended);
        await settle(exchange, outcome);
      },
    });
    if (result.error === undefined || result.upstreamBroke) judgeAnswer(dependencies, exchange, deployment, result.error);
    return outcome ?? (await streamOutcome(result));
  }

  // Relayed untouched: its usage is read instead of decoding it (unless the router keeps the decoded answer).
  const relayed = sameFormat && !keepsResponse(exchange);
  let text: string;
  let body: unknown;
  let summary: ResponseSummary | undefined;
  try {
    text = await upstream.body.text();
    // In the vendor's own layout even the parse is skipped.
    summary = relayed ? upstreamFormat.response.readSummary?.(text) : undefined;
    if (summary === undefined) body = parseAnswerBody(text);
  } catch (error) {
    const failure = transportError(error, request.signal);
    if (failure.kind !== 'client_closed') judgeAnswer(dependencies, exchange, deployment, failure);
    throw failure;
  }
  judgeAnswer(dependencies, exchange, deployment, undefined);
  if (relayed) summary ??= upstreamFormat.response.summarize(body);
  if (summary !== undefined) {
    const outcome: ExchangeOutcome = { status: 200, usage: summary.usage, firstByteAt: performance.now(), ...(summary.model === undefined ? {} : { responseModel: summary.model }) };
    return endJson(settle, exchange, outcome, response, headers, text);
  }
  const answer = upstreamFormat.response.toCanonical(body);
  if (exchange.answerId !== undefined) answer.id = exchange.answerId;
  let out = text;
  if (!sameFormat) {
    const started = performance.now();
    out = JSON.stringify(clientFormat.response.fromCanonical(answer, clientResponseContext(exchange)));
    dependencies.onTranslation(`${upstreamFormat.id}→${clientFormat.id}`, (performance.now() - started) / 1000);
  }
  const outcome: ExchangeOutcome = {
    status: 200,
    usage: answer.usage.estimated === true ? await estimateUsage(exchange, generatedText(answer.content)) : answer.usage,
    firstByteAt: performance.now(),
    answer,
  };
  return endJson(settle, exchange, outcome, response, headers, out);
}

/** The answer's bytes go out only once what it settles is durable. */
async function endJson(
  settle: SettleAnswer,
  exchange: Exchange,
  outcome: ExchangeOutcome,
  response: AnswerWriter,
  headers: Record<string, string>,
  text: string,
): Promise<ExchangeOutcome> {
  await settle(exchange, outcome);
  // The answer's own headers object, made for this response: completed in place, not copied.
  headers['content-type'] = 'application/json';
  headers['content-length'] = String(Buffer.byteLength(text));
  response.writeHead(200, headers);
  response.end(text);
  return outcome;
}

function buildUpstreamBody(dependencies: GenerateDependencies, exchange: Exchange, clientBody: Record<string, unknown>): string {
  const { canonical, clientFormat, upstreamFormat, deployment, sameFormat } = exchange;
  if (sameFormat) {
    // The body the client sent, model renamed; nothing a vendor added is lost.
    if (clientFormat.id !== 'generate-content') clientBody.model = deployment.model;
    if (canonical.stream && clientFormat.id === 'chat-completions') {
      // Usage must be read even when the client did not ask for it (protocols.md §11).
      const options = typeof clientBody.stream_options === 'object' && clientBody.stream_options !== null ? clientBody.stream_options : {};
      clientBody.stream_options = { ...options, include_usage: true };
    }
    return JSON.stringify(clientBody);
  }
  const started = performance.now();
  const encoded = upstreamFormat.request.fromCanonical(canonical, {
    model: deployment.model,
    ...(exchange.maxOutputTokens === undefined ? {} : { maxOutputTokens: exchange.maxOutputTokens }),
  });
  exchange.warnings.push(...encoded.warnings);
  const body = JSON.stringify(encoded.body);
  dependencies.onTranslation(`${clientFormat.id}→${upstreamFormat.id}`, (performance.now() - started) / 1000);
  return body;
}

async function relayUpstreamError(
  exchange: Exchange,
  upstream: UpstreamResponse,
  response: AnswerWriter,
  headers: Record<string, string>,
): Promise<ExchangeOutcome> {
  const body = await readErrorBody(upstream);
  if (!exchange.sameFormat) throw upstreamError(exchange, upstream, body);
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const retryAfter = upstream.headers['retry-after'];
  response.writeHead(upstream.statusCode, {
    ...headers,
    'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
    'content-length': Buffer.byteLength(text),
    ...(typeof retryAfter === 'string' ? { 'retry-after': retryAfter } : {}),
  });
  response.end(text);
  return { status: upstream.statusCode, usage: { inputTokens: 0, outputTokens: 0 } };
}

/** The upstream's error as a GatewayError, keeping its retry-after for the client. */
function upstreamError(exchange: Exchange, upstream: UpstreamResponse, body: unknown): GatewayError {
  const error = exchange.upstreamFormat.errors.fromUpstream(upstream.statusCode, body);
  const retryAfter = Number(upstream.headers['retry-after']);
  if (!Number.isFinite(retryAfter) || retryAfter <= 0 || error.retryAfterSeconds !== undefined) return error;
  return new GatewayError(error.kind, error.message, {
    status: error.status,
    retryAfterSeconds: retryAfter,
    ...(error.param === undefined ? {} : { param: error.param }),
    ...(error.code === undefined ? {} : { code: error.code }),
    ...(error.upstreamType === undefined ? {} : { upstreamType: error.upstreamType }),
    cause: error,
  });
}

async function estimateUsage(exchange: Exchange, outputText: string): Promise<CanonicalUsage> {
  return { inputTokens: await estimateRequestTokens(exchange.canonical), outputTokens: await estimateTextTokens(outputText), estimated: true };
}
