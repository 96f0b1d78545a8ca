import { GatewayError, type CanonicalRequest } from '@switchyard/canonical';
import { zodErrorToGatewayError } from '../shared/index.ts';
import type { EncodedRequest, RequestContext, UpstreamTarget } from '../wire-format.ts';
import { convertMessagesFromCanonical, convertMessagesToCanonical } from './convert-messages.ts';
import { convertThinkingToCanonical, encodeThinking } from './convert-thinking.ts';
import { convertToolChoiceToCanonical, convertToolsToCanonical, encodeTools, SERVER_TOOLS_FIELD } from './convert-tools.ts';
import { parseMessagesRequest } from './is-messages-request.ts';
import type { CountTokensRequest } from './schema.ts';

/** Used when neither the client nor the catalog names an output limit; messages requires one (§12.1). */
const DEFAULT_MAX_TOKENS = 4096;

/** Body fields the canonical request expresses; every other top-level field is an extension. */
const CANONICAL_FIELDS = new Set([
  'model',
  'messages',
  'system',
  'max_tokens',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'stop_sequences',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
  'metadata',
]);

/**
 * The decode shared by `/v1/messages` and `/count_tokens`. Fields without canonical meaning
 * (`cache_control`, `service_tier`, `container`, `inference_geo`, `mcp_servers`, betas' fields,
 * server tools) ride in `extensions` for a messages upstream.
 */
export function convertRequestToCanonical(body: CountTokensRequest, context: RequestContext): CanonicalRequest {
  const request: CanonicalRequest = {
    model: context.model ?? body.model,
    messages: convertMessagesToCanonical(body.system, body.messages),
    stream: false,
  };
  if (body.temperature !== undefined) request.temperature = body.temperature;
  if (body.top_p !== undefined) request.topP = body.top_p;
  if (body.top_k !== undefined) request.topK = body.top_k;
  if (body.stop_sequences !== undefined && body.stop_sequences.length > 0) request.stopSequences = body.stop_sequences;
  if (typeof body.metadata?.user_id === 'string') request.user = body.metadata.user_id;

  const fields: Record<string, unknown> = {};
  if (body.tools !== undefined) {
    const { tools, serverTools } = convertToolsToCanonical(body.tools);
    if (tools.length > 0) request.tools = tools;
    if (serverTools.length > 0) fields[SERVER_TOOLS_FIELD] = serverTools;
  }
  if (body.tool_choice !== undefined) Object.assign(request, convertToolChoiceToCanonical(body.tool_choice));
  const reasoning = convertThinkingToCanonical(body.thinking, body.output_config);
  if (reasoning !== undefined) request.reasoning = reasoning;
  const format = body.output_config?.format;
  if (format !== undefined && format !== null) request.responseFormat = { type: 'json-schema', schema: format.schema };

  for (const [key, value] of Object.entries(body)) {
    if (!CANONICAL_FIELDS.has(key)) fields[key] = value;
  }
  if (Object.keys(fields).length > 0) request.extensions = { format: 'messages', fields };
  return request;
}

export function requestToCanonical(body: unknown, context: RequestContext): CanonicalRequest {
  const parsed = parseMessagesRequest(body);
  if (!parsed.success) throw zodErrorToGatewayError(parsed.error);
  const request = convertRequestToCanonical(parsed.data, context);
  request.maxOutputTokens = parsed.data.max_tokens;
  request.stream = context.stream ?? parsed.data.stream ?? false;
  return request;
}

/** Canonical settings messages has no knob for; dropping them changes style, not meaning. */
const UNSUPPORTED_SETTINGS = [
  ['seed', 'seed'],
  ['presencePenalty', 'presence penalty'],
  ['frequencyPenalty', 'frequency penalty'],
  ['metadata', 'metadata'],
] as const;

/**
 * messages rejects temperature/top_p/top_k other than their defaults while thinking (§7.2),
 * and temperature above 1 at any time: clamp, never rescale (§10.7).
 */
function encodeSampling(request: CanonicalRequest, thinking: boolean, warnings: string[]): Record<string, number> {
  const sampling: Record<string, number> = {};
  const { temperature, topP, topK } = request;
  if (temperature !== undefined) {
    if (thinking && temperature !== 1) warnings.push('temperature was dropped: messages requires the default while thinking.');
    else if (temperature > 1) {
      sampling.temperature = 1;
      warnings.push(`temperature ${temperature} was clamped to 1, the messages maximum.`);
    } else sampling.temperature = temperature;
  }
  if (topP !== undefined) {
    if (thinking && topP !== 1) warnings.push('top_p was dropped: messages requires the default while thinking.');
    else sampling.top_p = topP;
  }
  if (topK !== undefined) {
    if (thinking) warnings.push('top_k was dropped: messages does not allow it while thinking.');
    else sampling.top_k = topK;
  }
  return sampling;
}

function encodeOutputFormat(request: CanonicalRequest, warnings: string[]): Record<string, unknown> | undefined {
  switch (request.responseFormat?.type) {
    case 'json-schema':
      return { format: { type: 'json_schema', schema: request.responseFormat.schema } };
    case 'json':
      warnings.push('JSON mode was dropped: messages has no JSON mode without a schema.');
      return undefined;
    default:
      return undefined;
  }
}

export function requestFromCanonical(request: CanonicalRequest, target: UpstreamTarget): EncodedRequest {
  if (request.n !== undefined && request.n > 1) {
    throw new GatewayError('invalid_request', 'This model returns one choice per request; n must be 1.', { param: 'n' });
  }
  // An image or audio the client asked for would never come: a wrong answer, not a style change
  // (docs/translation.md), so refused as the chat-completions encoder refuses it.
  if (request.outputModalities?.some((modality) => modality !== 'text') === true) {
    throw new GatewayError('invalid_request', 'This model answers with text only; image or audio output cannot be requested.');
  }
  const warnings: string[] = [];
  const conversation = convertMessagesFromCanonical(request.messages, warnings);
  const { thinking, maxTokens } = encodeThinking(
    request,
    conversation.messages,
    request.maxOutputTokens ?? target.maxOutputTokens ?? DEFAULT_MAX_TOKENS,
    target.maxOutputTokens,
    warnings,
  );
  const body: Record<string, unknown> = { model: target.model, max_tokens: maxTokens };
  if (conversation.system !== undefined) body.system = conversation.system;
  body.messages = conversation.messages;
  if (thinking !== undefined) body.thinking = thinking;
  Object.assign(body, encodeSampling(request, thinking !== undefined, warnings));
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) body.stop_sequences = request.stopSequences;
  Object.assign(body, encodeTools(request));
  const outputConfig = encodeOutputFormat(request, warnings);
  if (outputConfig !== undefined) body.output_config = outputConfig;
  if (request.user !== undefined) body.metadata = { user_id: request.user };
  if (request.stream) body.stream = true;

  for (const [key, label] of UNSUPPORTED_SETTINGS) {
    if (request[key] !== undefined) warnings.push(`${label} was dropped: messages has no such setting.`);
  }
  if (request.extensions?.format === 'messages') {
    for (const [key, value] of Object.entries(request.extensions.fields)) {
      if (!(key in body) && key !== SERVER_TOOLS_FIELD) body[key] = value;
    }
  }
  return { body, warnings };
}
