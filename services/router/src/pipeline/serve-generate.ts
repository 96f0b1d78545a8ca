import type { ServerResponse } from 'node:http';
import { GatewayError, type CanonicalUsage } from '@switchyard/canonical';
import type { Dispatcher } from 'undici';
import { callUpstream, readErrorBody, type UpstreamTimeouts } from './call-upstream.ts';
import type { Exchange, ExchangeOutcome } from './exchange.ts';
import { estimateRequestTokens, estimateTextTokens } from './estimate-tokens.ts';
import { streamAnswer } from './stream-answer.ts';
import type { UpstreamClient } from '@switchyard/providers';

export interface GenerateDependencies {
  upstream: UpstreamClient;
  timeouts: UpstreamTimeouts;
  /** Records time spent translating, by `client→upstream` pair. */
  onTranslation(pair: string, seconds: number): void;
}

/**
 * One generate call: build the upstream body, call the deployment, answer in the client's
 * format (JSON or stream). Upstream errors are thrown as GatewayErrors for the caller to
 * render, except on the same-format path where the vendor's own error body passes through.
 */
export async function serveGenerate(
  dependencies: GenerateDependencies,
  exchange: Exchange,
  clientBody: Record<string, unknown>,
  response: ServerResponse,
): Promise<ExchangeOutcome> {
  const { canonical, clientFormat, upstreamFormat, sameFormat, deployment, request } = exchange;
  const requestId = request.identity.requestId;
  const upstreamBody = buildUpstreamBody(dependencies, exchange, clientBody);
  const extraHeaders: Record<string, string> = {};
  const beta = request.headers['anthropic-beta'];
  if (beta !== undefined && upstreamFormat.id === 'messages') extraHeaders['anthropic-beta'] = beta;

  const upstream = await callUpstream({
    client: dependencies.upstream,
    endpoint: exchange.endpoint,
    format: upstreamFormat,
    path: upstreamFormat.upstream.generatePath(deployment.model, canonical.stream),
    body: upstreamBody,
    extraHeaders,
    signal: request.signal,
    timeouts: { ...dependencies.timeouts, ...exchange.timeouts },
  });

  const headers: Record<string, string> = { 'x-request-id': requestId };
  if (exchange.warnings.length > 0) headers['x-switchyard-warning'] = exchange.warnings.join('; ').replace(/[^\x20-\x7e]/g, '?');

  if (upstream.statusCode >= 400) return relayUpstreamError(exchange, upstream, response, headers);

  if (canonical.stream) {
    const result = await streamAnswer(exchange, upstream, response, headers);
    const usage = result.answer?.usage;
    return {
      status: result.error === undefined ? 200 : result.error.status,
      usage: usage === undefined || usage.estimated === true ? estimateUsage(exchange, result.generatedText()) : usage,
      ...(result.firstByteAt === undefined ? {} : { firstByteAt: result.firstByteAt }),
      ...(result.answer === undefined ? {} : { answer: result.answer }),
    };
  }

  const text = await upstream.body.text();
  const answer = upstreamFormat.response.toCanonical(JSON.parse(text));
  if (exchange.answerId !== undefined) answer.id = exchange.answerId;
  let out = text;
  if (!sameFormat) {
    const started = performance.now();
    out = JSON.stringify(clientFormat.response.fromCanonical(answer, { model: canonical.model, requestId }));
    dependencies.onTranslation(`${upstreamFormat.id}→${clientFormat.id}`, (performance.now() - started) / 1000);
  }
  response.writeHead(200, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
  response.end(out);
  const outputText = answer.content.map((part) => (part.type === 'text' ? part.text : part.type === 'tool-call' ? part.arguments : '')).join('');
  return {
    status: 200,
    usage: answer.usage.estimated === true ? estimateUsage(exchange, outputText) : answer.usage,
    firstByteAt: performance.now(),
    answer,
  };
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
  upstream: Dispatcher.ResponseData,
  response: ServerResponse,
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
function upstreamError(exchange: Exchange, upstream: Dispatcher.ResponseData, body: unknown): GatewayError {
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

function estimateUsage(exchange: Exchange, outputText: string): CanonicalUsage {
  return { inputTokens: estimateRequestTokens(exchange.canonical), outputTokens: estimateTextTokens(outputText), estimated: true };
}
