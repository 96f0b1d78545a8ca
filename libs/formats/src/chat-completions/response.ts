import { GatewayError } from '@switchyard/canonical';
import type { CanonicalResponse, ContentPart } from '@switchyard/canonical';
import { createId } from '../shared/index.ts';
import type { ResponseContext } from '../wire-format.ts';
import { convertToCanonicalUsage, convertToChatUsage, missingUsage } from './convert-usage.ts';
import type { ChatUsageBody } from './convert-usage.ts';
import { mapCompletionId } from './map-completion-id.ts';
import { mapToCanonicalFinishReason, mapToChatFinishReason } from './map-finish-reason.ts';
import type { ChatFinishReason } from './map-finish-reason.ts';
import { chatCompletionSchema } from './response-schema.ts';
import type { ChatToolCall } from './schema.ts';

/** The non-streaming answer a chat client receives (protocols.md §3.4). */
export interface ChatCompletionBody {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      refusal: string | null;
      tool_calls?: ChatToolCall[];
      /** Non-standard; only for clients that opted in (ResponseContext.includeReasoning). */
      reasoning_content?: string;
    };
    logprobs: null;
    finish_reason: ChatFinishReason;
  }>;
  usage: ChatUsageBody;
}

/** An upstream's answer → canonical. Only the first choice: translation serves n = 1. */
export function responseToCanonical(body: unknown): CanonicalResponse {
  const parsed = chatCompletionSchema.safeParse(body);
  const choice = parsed.success ? parsed.data.choices[0] : undefined;
  if (!parsed.success || choice === undefined) {
    throw new GatewayError('upstream_error', 'The upstream answered with a body that is not a chat completion.', {
      cause: parsed.error,
    });
  }
  const completion = parsed.data;
  const message = choice.message;
  const content: ContentPart[] = [];
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (reasoning) content.push({ type: 'reasoning', text: reasoning });
  if (message.content) content.push({ type: 'text', text: message.content });
  if (message.refusal) content.push({ type: 'refusal', text: message.refusal });
  for (const call of message.tool_calls ?? []) {
    content.push({
      type: 'tool-call',
      id: call.id ?? createId('call_'),
      name: call.function.name ?? '',
      arguments: call.function.arguments ?? '',
    });
  }
  return {
    id: completion.id ?? '',
    model: completion.model ?? '',
    created: completion.created ?? Math.floor(Date.now() / 1000),
    content,
    finishReason: mapToCanonicalFinishReason(choice.finish_reason),
    usage: completion.usage == null ? missingUsage() : convertToCanonicalUsage(completion.usage),
  };
}

/**
 * Canonical → the client's answer. Text parts join into one string (chat has one content
 * string per message); media parts have no place in a chat answer and are left out.
 */
export function responseFromCanonical(response: CanonicalResponse, context: ResponseContext): ChatCompletionBody {
  let text: string | undefined;
  let refusal: string | null = null;
  let reasoning: string | undefined;
  const toolCalls: ChatToolCall[] = [];
  for (const part of response.content) {
    switch (part.type) {
      case 'text':
        text = (text ?? '') + part.text;
        break;
      case 'refusal':
        refusal = (refusal ?? '') + part.text;
        break;
      case 'reasoning':
        reasoning = (reasoning ?? '') + part.text;
        break;
      case 'tool-call':
        toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
        break;
    }
  }
  const message: ChatCompletionBody['choices'][number]['message'] = {
    role: 'assistant',
    content: text ?? (toolCalls.length > 0 || refusal !== null ? null : ''),
    refusal,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (context.includeReasoning && reasoning !== undefined) message.reasoning_content = reasoning;
  return {
    id: mapCompletionId(response.id, context.requestId),
    object: 'chat.completion',
    created: response.created,
    model: context.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: mapToChatFinishReason(response.finishReason) }],
    usage: convertToChatUsage(response.usage),
  };
}
