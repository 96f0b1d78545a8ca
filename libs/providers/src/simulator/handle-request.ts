import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerGeneration } from './answer-generation.ts';
import { asObject } from './json-access.ts';
import type { JsonObject } from './json-access.ts';
import { renderGeminiModelList, renderMessagesModelList, renderOpenAiModelList } from './model-lists.ts';
import { pauseResponse } from './pause-response.ts';
import { countInputTokens } from './plan-reply.ts';
import { readChatCompletionsRequest } from './read-chat-completions-request.ts';
import { readGenerateContentRequest } from './read-generate-content-request.ts';
import { readMessagesRequest } from './read-messages-request.ts';
import { readResponsesRequest } from './read-responses-request.ts';
import { renderEmbeddings } from './render-embeddings.ts';
import { renderTokenCount } from './render-token-count.ts';
import { renderVendorError } from './render-vendor-error.ts';
import type { VendorFormat } from './render-vendor-error.ts';
import { redactHeaders, redactPath } from './request-log.ts';
import { readHeaderKnobs, readInlineDirectives, resolveKnobs } from './resolve-knobs.ts';
import { routePath } from './route-path.ts';
import type { Route } from './route-path.ts';
import { sendJson, sendVendorError } from './send-response.ts';
import type { SimulationRequest } from './simulation-request.ts';
import type { SimulatorKnobs } from './simulator-knobs.ts';
import type { SimulatorState } from './simulator-state.ts';
import { wasDisconnectedOnPurpose } from './write-event-stream.ts';

const REQUEST_ID_HEADERS: Record<VendorFormat, string | undefined> = {
  'chat-completions': 'x-request-id',
  responses: 'x-request-id',
  messages: 'request-id',
  'generate-content': undefined,
};

function logRequest(state: SimulatorState, request: IncomingMessage, body: unknown): void {
  state.log.add({ method: request.method ?? '', path: redactPath(request.url ?? ''), headers: redactHeaders(request.headers), body });
}

function answerIntrospection(state: SimulatorState, request: IncomingMessage, response: ServerResponse, path: string): void {
  if (path === '/_sim/requests' && request.method === 'GET') sendJson(response, 200, JSON.stringify(state.log.list()));
  else if (path === '/_sim/requests' && request.method === 'DELETE') {
    state.log.clear();
    response.writeHead(204).end();
  } else if (path === '/_sim/stats' && request.method === 'GET') sendJson(response, 200, JSON.stringify(state.stats));
  else sendVendorError(response, renderVendorError('chat-completions', 404, `Unknown simulator path ${path}`, { code: null }));
}

/** GET /v1/models is shared by three vendors; the headers say which (protocols.md §8). */
function answerModelList(request: IncomingMessage, response: ServerResponse, route: Route, query: string): void {
  const headers = request.headers;
  if (route.endpoint === 'gemini-models' || headers['x-goog-api-key'] !== undefined || /(^|&)key=/.test(query)) {
    sendJson(response, 200, renderGeminiModelList());
  } else if (headers['anthropic-version'] !== undefined) {
    sendJson(response, 200, renderMessagesModelList());
  } else {
    sendJson(response, 200, renderOpenAiModelList());
  }
}

/** The simulation request of a generation or token-count endpoint; undefined for embeddings. */
function readSimulationRequest(route: Route, body: JsonObject): SimulationRequest | undefined {
  switch (route.endpoint) {
    case 'chat-completions':
      return readChatCompletionsRequest(body);
    case 'responses':
      return readResponsesRequest(body);
    case 'messages':
    case 'messages-count-tokens':
      return readMessagesRequest(body);
    case 'generate-content':
    case 'stream-generate-content':
      return readGenerateContentRequest(body, route.model, route.endpoint === 'stream-generate-content');
    case 'count-tokens':
      // Either bare `contents` or a whole `generateContentRequest` (protocols.md §9).
      return readGenerateContentRequest(asObject(body.generateContentRequest) ?? body, route.model, false);
    default:
      return undefined;
  }
}

/** What the real Messages API refuses before doing any work. */
function validateMessages(request: IncomingMessage, route: Route, body: JsonObject): string | undefined {
  if (request.headers['anthropic-version'] === undefined) return 'anthropic-version: header is required';
  if (route.endpoint === 'messages' && body.max_tokens === undefined) return 'max_tokens: Field required';
  return undefined;
}

/** fail_rate samples with fail_status (default 500); fail_status alone always fails. */
function injectedFailure(state: SimulatorState, knobs: SimulatorKnobs): number {
  if (knobs.fail_rate > 0) return state.sampleFailure(knobs.fail_rate) ? knobs.fail_status || 500 : 0;
  return knobs.fail_status;
}

async function answer(
  state: SimulatorState,
  request: IncomingMessage,
  response: ServerResponse,
  route: Route,
  query: string,
  text: string,
): Promise<void> {
  const id = state.nextId();
  const format = route.format;
  const requestIdHeader = REQUEST_ID_HEADERS[format];
  const headers: Record<string, string> = requestIdHeader === undefined ? {} : { [requestIdHeader]: `req_${id}` };
  const errorOptions = { requestId: `req_${id}` };

  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  logRequest(state, request, parsed ?? null);
  const body = asObject(parsed);
  if (body === undefined) {
    sendVendorError(response, renderVendorError(format, 400, 'The request body is not a JSON object.', errorOptions));
    return;
  }

  const simulation = readSimulationRequest(route, body);
  let inline: Partial<SimulatorKnobs> | undefined;
  if (simulation !== undefined) {
    const directives = readInlineDirectives(simulation.userText);
    simulation.userText = directives.text;
    inline = directives.overrides;
  }
  const knobs = resolveKnobs(state.defaults, readHeaderKnobs(request.rawHeaders), inline);
  const failure = injectedFailure(state, knobs);
  if (simulation?.stream === true) {
    // Registered before any wait: a client that gives up during latency_ms also aborted.
    response.once('close', () => {
      if (!response.writableFinished && !wasDisconnectedOnPurpose(response)) state.stats.abortedStreams += 1;
    });
  }

  const headerDelay = knobs.latency_ms + knobs.slow_headers_ms;
  if (headerDelay > 0 && !(await pauseResponse(response, headerDelay))) return;

  const invalid = format === 'messages' ? validateMessages(request, route, body) : undefined;
  if (invalid !== undefined) {
    sendVendorError(response, renderVendorError(format, 400, invalid, errorOptions));
    return;
  }
  if (failure > 0) {
    const message = failure === 529 ? 'Overloaded' : `Simulated failure with status ${failure}.`;
    sendVendorError(response, renderVendorError(format, failure, message, { ...errorOptions, retryAfter: knobs.fail_retry_after }));
    return;
  }

  if (simulation === undefined) {
    sendJson(response, 200, renderEmbeddings(route.endpoint, body), headers);
  } else if (route.endpoint === 'messages-count-tokens' || route.endpoint === 'count-tokens') {
    sendJson(response, 200, renderTokenCount(format, countInputTokens(simulation)), headers);
  } else {
    const sse = format !== 'generate-content' || /(^|&)alt=sse(&|$)/.test(query);
    await answerGeneration(response, { format, request: simulation, knobs, id, headers, sse });
  }
}

/** The node:http request listener of the simulator. */
export function handleRequest(state: SimulatorState, request: IncomingMessage, response: ServerResponse): void {
  const url = request.url ?? '/';
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const query = queryStart === -1 ? '' : url.slice(queryStart + 1);
  if (path.startsWith('/_sim/')) {
    answerIntrospection(state, request, response, path);
    return;
  }
  state.stats.requests += 1;
  const route = routePath(request.method, path);
  if (route === undefined || request.method === 'GET') logRequest(state, request, null);
  if (route === undefined) {
    const message = `Invalid URL (${request.method ?? ''} ${path})`;
    sendVendorError(response, renderVendorError('chat-completions', 404, message, { code: null }));
    return;
  }
  if (route.endpoint === 'models' || route.endpoint === 'gemini-models') {
    answerModelList(request, response, route, query);
    return;
  }
  let text = '';
  request.setEncoding('utf8');
  request.on('data', (chunk: string) => {
    text += chunk;
  });
  request.on('end', () => {
    answer(state, request, response, route, query, text).catch((error: unknown) => {
      // A bug in the simulator must surface in the test that hit it, not hang the client.
      if (!response.headersSent) sendVendorError(response, renderVendorError(route.format, 500, String(error)));
      else response.destroy(error instanceof Error ? error : undefined);
    });
  });
}
