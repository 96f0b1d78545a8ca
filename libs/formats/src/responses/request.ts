import { GatewayError } from '@switchyard/canonical';
import type { CanonicalRequest } from '@switchyard/canonical';
import { reasoningEffort } from '../shared/index.ts';
import type { EncodedRequest, RequestContext, UpstreamTarget } from '../wire-format.ts';
import { convertInputItems } from './convert-input-items.ts';
import { convertMessagesToInput } from './convert-messages-to-input.ts';
import { textFormatFromCanonical, textFormatToCanonical } from './convert-text-format.ts';
import {
  toolChoiceFromCanonical,
  toolFromCanonical,
  toolsToCanonical,
  type CanonicalToolSettings,
} from './convert-tools.ts';
import { parseRequestBody } from './parse-request-body.ts';
import type { RequestBody } from './schema.ts';

/** Top-level fields the canonical request carries; every other field rides in extensions. */
const CANONICAL_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'input',
  'instructions',
  'stream',
  'max_output_tokens',
  'temperature',
  'top_p',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'text',
  'reasoning',
  'store',
  'previous_response_id',
  'metadata',
  'user',
  'safety_identifier',
]);

type Fields = Record<string, unknown>;

/** The Responses API rejects smaller values (protocols.md §7.2). */
const MIN_MAX_OUTPUT_TOKENS = 16;

export function requestToCanonical(body: unknown, context: RequestContext): CanonicalRequest {
  const parsed = parseRequestBody(body);
  const model = context.model ?? parsed.model;
  if (model == null || model === '') {
    throw new GatewayError('invalid_request', "Missing required parameter: 'model'.", { param: 'model' });
  }
  const request: CanonicalRequest = {
    model,
    messages: convertInputItems(parsed.input, parsed.instructions),
    stream: context.stream ?? parsed.stream ?? false,
    store: parsed.store ?? true,
  };
  const tools = toolsToCanonical(parsed.tools, parsed.tool_choice);
  if (tools.tools !== undefined) request.tools = tools.tools;
  if (tools.toolChoice !== undefined) request.toolChoice = tools.toolChoice;
  if (tools.allowedTools !== undefined) request.allowedTools = tools.allowedTools;
  if (parsed.parallel_tool_calls != null) request.parallelToolCalls = parsed.parallel_tool_calls;
  if (parsed.max_output_tokens != null) request.maxOutputTokens = parsed.max_output_tokens;
  if (parsed.temperature != null) request.temperature = parsed.temperature;
  if (parsed.top_p != null) request.topP = parsed.top_p;
  if (parsed.text?.format != null) request.responseFormat = textFormatToCanonical(parsed.text.format);
  const reasoning = parsed.reasoning;
  if (reasoning != null) {
    const includeThoughts = (reasoning.summary ?? reasoning.generate_summary) != null;
    if (reasoning.effort != null || includeThoughts) {
      request.reasoning = {
        ...(reasoning.effort == null ? {} : { effort: reasoning.effort }),
        ...(includeThoughts ? { includeThoughts } : {}),
      };
    }
  }
  if (parsed.previous_response_id != null) request.previousResponseId = parsed.previous_response_id;
  if (parsed.metadata != null) request.metadata = parsed.metadata;
  const user = parsed.safety_identifier ?? parsed.user;
  if (user != null) request.user = user;
  const fields = vendorFields(parsed, tools);
  if (Object.keys(fields).length > 0) request.extensions = { format: 'responses', fields };
  return request;
}

/**
 * Fields with no canonical meaning, kept verbatim for a Responses upstream: unknown top-level
 * fields, hosted tools, the parts of `text` and `reasoning` beside format and effort (verbosity,
 * the summary style), and `user` when `safety_identifier` took the canonical slot.
 */
function vendorFields(parsed: RequestBody, tools: CanonicalToolSettings): Fields {
  const fields: Fields = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!CANONICAL_FIELDS.has(key) && value !== undefined) fields[key] = value;
  }
  if (tools.vendorTools !== undefined) fields['tools'] = tools.vendorTools;
  if (tools.vendorToolChoice !== undefined) fields['tool_choice'] = tools.vendorToolChoice;
  const text = withoutKey(parsed.text, 'format');
  if (text !== undefined) fields['text'] = text;
  const reasoning = withoutKey(parsed.reasoning, 'effort');
  if (reasoning !== undefined) fields['reasoning'] = reasoning;
  if (parsed.user != null && parsed.safety_identifier != null) fields['user'] = parsed.user;
  return fields;
}

function withoutKey(value: Fields | null | undefined, key: string): Fields | undefined {
  if (value == null) return undefined;
  const { [key]: _removed, ...rest } = value;
  return Object.keys(rest).length > 0 ? rest : undefined;
}

export function requestFromCanonical(request: CanonicalRequest, target: UpstreamTarget): EncodedRequest {
  if (request.n !== undefined && request.n > 1) {
    // One answer where the client asked for several would be silently wrong (protocols.md §10.7).
    throw new GatewayError('invalid_request', 'This model returns one choice per request; n must be 1.', {
      param: 'n',
    });
  }
  if (request.outputModalities?.some((modality) => modality !== 'text') === true) {
    // Image or audio the client asked for would never come: refused like n > 1 (docs/translation.md).
    throw new GatewayError('invalid_request', 'This model answers with text only; image or audio output cannot be requested.');
  }
  const warnings: string[] = [];
  const warn = (warning: string): void => {
    if (!warnings.includes(warning)) warnings.push(warning);
  };
  const vendor = request.extensions?.format === 'responses' ? request.extensions.fields : {};
  // No `store` and no `previous_response_id`: Switchyard keeps conversation state itself and has
  // already expanded previous_response_id into the full history, which is sent every time.
  const body: Fields = {
    ...vendor,
    model: target.model,
    input: convertMessagesToInput(request.messages, warn),
    stream: request.stream,
  };
  if (request.maxOutputTokens !== undefined) {
    body['max_output_tokens'] = Math.max(request.maxOutputTokens, MIN_MAX_OUTPUT_TOKENS);
    if (request.maxOutputTokens < MIN_MAX_OUTPUT_TOKENS) {
      const raised = `${request.maxOutputTokens} to ${MIN_MAX_OUTPUT_TOKENS}`;
      warn(`max_output_tokens raised from ${raised}, the Responses API minimum.`);
    }
  }
  if (request.temperature !== undefined) body['temperature'] = request.temperature;
  if (request.topP !== undefined) body['top_p'] = request.topP;
  const tools = [...(request.tools ?? []).map(toolFromCanonical), ...arrayField(vendor['tools'])];
  if (tools.length > 0) body['tools'] = tools;
  const toolChoice = toolChoiceFromCanonical(request.toolChoice, request.allowedTools);
  if (toolChoice !== undefined) body['tool_choice'] = toolChoice;
  if (request.parallelToolCalls !== undefined) body['parallel_tool_calls'] = request.parallelToolCalls;
  const text = {
    ...recordField(vendor['text']),
    ...(request.responseFormat === undefined ? {} : { format: textFormatFromCanonical(request.responseFormat) }),
  };
  if (Object.keys(text).length > 0) body['text'] = text;
  const reasoning = reasoningFromCanonical(request, recordField(vendor['reasoning']));
  if (reasoning !== undefined) body['reasoning'] = reasoning;
  if (request.metadata !== undefined) body['metadata'] = request.metadata;
  if (request.user !== undefined) body['safety_identifier'] = request.user;
  warnAboutDropped(request, warn);
  return { body, warnings };
}

function reasoningFromCanonical(request: CanonicalRequest, vendor: Fields): Fields | undefined {
  const effort = request.reasoning === undefined ? undefined : reasoningEffort(request.reasoning);
  const reasoning: Fields = { ...vendor };
  if (effort !== undefined) reasoning['effort'] = effort;
  if (request.reasoning?.includeThoughts === true && reasoning['summary'] == null) reasoning['summary'] = 'auto';
  return Object.keys(reasoning).length > 0 ? reasoning : undefined;
}

/** Settings the Responses API has no field for (protocols.md §10.7); ignoring them changes style, not meaning. */
function warnAboutDropped(request: CanonicalRequest, warn: (warning: string) => void): void {
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) {
    warn('stop was dropped: the Responses API has no stop sequences.');
  }
  if (request.topK !== undefined) warn('top_k was dropped: the Responses API has no top_k.');
  if (request.seed !== undefined) warn('seed was dropped: the Responses API has no seed.');
  if (request.presencePenalty !== undefined || request.frequencyPenalty !== undefined) {
    warn('presence/frequency penalties were dropped: the Responses API has none.');
  }
}

function arrayField(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function recordField(value: unknown): Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : {};
}
