import { GatewayError, type CanonicalResponse, type ContentPart, type ToolCallPart } from '@switchyard/canonical';
import { mapToolCallId, parseToolArguments } from '../shared/index.ts';
import type { ResponseContext } from '../wire-format.ts';
import { convertContentBlockToPart, encodeReasoningPart, type MessagesContentBlock } from './convert-content-blocks.ts';
import { convertUsageFromCanonical, convertUsageToCanonical } from './convert-usage.ts';
import { mapStopReasonFromCanonical, mapStopReasonToCanonical } from './map-stop-reason.ts';
import { messagesResponseSchema } from './schema.ts';

/** Ids clients see start with `msg_` as the vendor's do; an upstream id is kept inside it (§11.2). */
export function messageId(upstreamId: string, requestId: string): string {
  if (upstreamId === '') return `msg_${requestId}`;
  return upstreamId.startsWith('msg_') ? upstreamId : `msg_${upstreamId}`;
}

export function responseToCanonical(body: unknown): CanonicalResponse {
  const parsed = messagesResponseSchema.safeParse(body);
  if (!parsed.success) {
    throw new GatewayError('upstream_error', 'The upstream returned a body that is not a messages response.', {
      cause: parsed.error,
    });
  }
  const { data } = parsed;
  const content: ContentPart[] = [];
  for (const block of data.content) {
    // A response never holds tool results; server-tool blocks have no canonical form.
    if (block.type === 'tool_result') continue;
    const part = convertContentBlockToPart(block);
    if (part !== undefined) content.push(part);
  }
  return {
    id: data.id ?? '',
    model: data.model ?? '',
    // messages answers carry no timestamp.
    created: Math.floor(Date.now() / 1000),
    content,
    finishReason: mapStopReasonToCanonical(data.stop_reason, data.stop_sequence),
    usage: convertUsageToCanonical(data.usage),
  };
}

/**
 * A model can emit arguments that are not a JSON object (chat upstreams stream them as text);
 * messages `input` must be one, and a client-side 400 would blame the wrong party.
 */
function encodeToolCall(part: ToolCallPart): MessagesContentBlock {
  let input: Record<string, unknown>;
  try {
    input = parseToolArguments(part.arguments, 'arguments');
  } catch (error) {
    const message = `The upstream returned arguments for tool ${part.name} that are not a JSON object.`;
    throw new GatewayError('upstream_error', message, { cause: error });
  }
  return { type: 'tool_use', id: mapToolCallId(part.id), name: part.name, input };
}

/** Generated media and tool results have no place in a messages answer and are left out. */
function encodeAnswerPart(part: ContentPart): MessagesContentBlock | undefined {
  switch (part.type) {
    case 'text':
    case 'refusal':
      return part.text === '' ? undefined : { type: 'text', text: part.text };
    case 'reasoning':
      return encodeReasoningPart(part);
    case 'tool-call':
      return encodeToolCall(part);
    default:
      return undefined;
  }
}

export function responseFromCanonical(response: CanonicalResponse, context: ResponseContext): unknown {
  const content: MessagesContentBlock[] = [];
  for (const part of response.content) {
    const block = encodeAnswerPart(part);
    if (block !== undefined) content.push(block);
  }
  return {
    id: messageId(response.id, context.requestId),
    type: 'message',
    role: 'assistant',
    model: context.model,
    content,
    stop_reason: mapStopReasonFromCanonical(response.finishReason),
    stop_sequence: response.finishReason.stopSequence ?? null,
    usage: convertUsageFromCanonical(response.usage),
  };
}
