import { GatewayError } from '@switchyard/canonical';
import type { CanonicalRequest } from '@switchyard/canonical';
import { reasoningEffort, zodErrorToGatewayError } from '../shared/index.ts';
import type { EncodedRequest, RequestContext, UpstreamTarget } from '../wire-format.ts';
import { convertToCanonicalResponseFormat, convertToChatResponseFormat } from './convert-response-format.ts';
import { convertToCanonicalMessages } from './convert-to-canonical-messages.ts';
import { convertToChatMessages } from './convert-to-chat-messages.ts';
import { convertToCanonicalTools, convertToChatToolChoice, convertToChatTools } from './convert-tools.ts';
import { parseChatRequest } from './is-chat-request.ts';

const FORMAT = 'chat-completions';

/** Body fields with a canonical meaning; every other field travels on as an extension. */
const CANONICAL_FIELDS = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'max_completion_tokens',
  'max_tokens',
  'temperature',
  'top_p',
  'n',
  'stop',
  'presence_penalty',
  'frequency_penalty',
  'seed',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'functions',
  'function_call',
  'response_format',
  'reasoning_effort',
  'user',
  'safety_identifier',
]);

/** Extension fields the encoder merges rather than copies. */
const MERGED_FIELDS = new Set(['tools', 'stream_options']);

export function requestToCanonical(body: unknown, context: RequestContext): CanonicalRequest {
  const parsed = parseChatRequest(body);
  if (!parsed.success) throw zodErrorToGatewayError(parsed.error);
  const chat = parsed.data;
  const tools = convertToCanonicalTools(chat);
  const fields: Record<string, unknown> = tools.extensionFields;
  for (const key of Object.keys(chat)) if (!CANONICAL_FIELDS.has(key)) fields[key] = chat[key];

  const { include_usage: includeUsage, ...otherStreamOptions } = chat.stream_options ?? {};
  if (Object.keys(otherStreamOptions).length > 0) fields.stream_options = otherStreamOptions;
  // `safety_identifier` replaces the deprecated `user`; both name the end user. When a client
  // sends both, `user` is the canonical one and the other rides along for chat upstreams.
  if (chat.user != null && chat.safety_identifier != null) fields.safety_identifier = chat.safety_identifier;

  return {
    model: context.model ?? chat.model,
    messages: convertToCanonicalMessages(chat.messages),
    tools: tools.tools,
    toolChoice: tools.toolChoice,
    allowedTools: tools.allowedTools,
    parallelToolCalls: chat.parallel_tool_calls ?? undefined,
    temperature: chat.temperature ?? undefined,
    topP: chat.top_p ?? undefined,
    // The current name wins over the deprecated one (reasoning models reject `max_tokens`).
    maxOutputTokens: chat.max_completion_tokens ?? chat.max_tokens ?? undefined,
    stopSequences: typeof chat.stop === 'string' ? [chat.stop] : (chat.stop ?? undefined),
    seed: chat.seed ?? undefined,
    presencePenalty: chat.presence_penalty ?? undefined,
    frequencyPenalty: chat.frequency_penalty ?? undefined,
    n: chat.n ?? undefined,
    responseFormat: chat.response_format == null ? undefined : convertToCanonicalResponseFormat(chat.response_format),
    reasoning: chat.reasoning_effort == null ? undefined : { effort: chat.reasoning_effort },
    user: chat.user ?? chat.safety_identifier ?? undefined,
    stream: context.stream ?? chat.stream ?? false,
    includeUsage: includeUsage ?? undefined,
    extensions: Object.keys(fields).length > 0 ? { format: FORMAT, fields } : undefined,
  };
}

/**
 * Canonical → the body for a chat upstream. `n` is not sent: the router answers n > 1 only
 * through the same-format fast path. Unset values stay `undefined` and vanish in JSON.
 */
export function requestFromCanonical(request: CanonicalRequest, target: UpstreamTarget): EncodedRequest {
  const warnings: string[] = [];
  const fields = request.extensions?.format === FORMAT ? request.extensions.fields : undefined;
  if (request.topK !== undefined) warnings.push('top_k is not supported by chat-completions and was dropped.');
  // Chat `metadata` tags stored completions and is refused without `store: true`, so chat's own
  // travels as an extension with its `store`, and other formats' metadata stays here.
  if (request.metadata !== undefined) warnings.push('metadata is not supported by chat-completions and was dropped.');
  if (request.outputModalities?.some((modality) => modality !== 'text')) {
    throw new GatewayError('invalid_request', 'This model answers with text only; image or audio output cannot be requested.');
  }
  const tools = [...convertToChatTools(request.tools ?? []), ...arrayField(fields, 'tools')];
  const body: Record<string, unknown> = {
    model: target.model,
    messages: convertToChatMessages(request.messages, warnings),
    tools: tools.length > 0 ? tools : undefined,
    tool_choice: convertToChatToolChoice(request.toolChoice, request.allowedTools),
    parallel_tool_calls: request.parallelToolCalls,
    temperature: request.temperature,
    top_p: request.topP,
    max_completion_tokens: request.maxOutputTokens,
    stop: request.stopSequences,
    seed: request.seed,
    presence_penalty: request.presencePenalty,
    frequency_penalty: request.frequencyPenalty,
    response_format: request.responseFormat && convertToChatResponseFormat(request.responseFormat),
    reasoning_effort: request.reasoning && reasoningEffort(request.reasoning),
    user: request.user,
  };
  if (request.stream) {
    body.stream = true;
    // Usage must be read upstream even when the client did not ask (protocols.md §11).
    body.stream_options = { ...objectField(fields, 'stream_options'), include_usage: true };
  }
  if (fields !== undefined) {
    // Extensions fill only what the canonical encoding left unset.
    for (const [key, value] of Object.entries(fields)) {
      if (!MERGED_FIELDS.has(key) && body[key] === undefined) body[key] = value;
    }
  }
  return { body, warnings };
}

function arrayField(fields: Record<string, unknown> | undefined, key: string): unknown[] {
  const value = fields?.[key];
  return Array.isArray(value) ? value : [];
}

function objectField(fields: Record<string, unknown> | undefined, key: string): object | undefined {
  const value = fields?.[key];
  return typeof value === 'object' && value !== null ? value : undefined;
}
