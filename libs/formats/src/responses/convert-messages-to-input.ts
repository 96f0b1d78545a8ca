import { GatewayError } from '@switchyard/canonical';
import type { CanonicalMessage, ContentPart, ReasoningPart, ToolResultPart } from '@switchyard/canonical';
import { mapToolCallId } from '../shared/index.ts';
import { fileFromCanonical, imageFromCanonical, type InputContentPart } from './convert-content-parts.ts';
import { outputRefusal, outputText, summaryText, type MessageContent, type SummaryText } from './output-items.ts';

type MessageRole = 'user' | 'assistant' | 'system' | 'developer';
type Warn = (warning: string) => void;

/** What a responses upstream receives as `input` (protocols.md §4.1). */
export type UpstreamInputItem =
  | { type: 'message'; role: Exclude<MessageRole, 'assistant'>; content: InputContentPart[] }
  | { type: 'message'; role: 'assistant'; content: MessageContent[] }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string | InputContentPart[] }
  | { type: 'reasoning'; id?: string; summary: SummaryText[]; encrypted_content: string };

/**
 * Canonical messages → input items. Each message becomes message items for its content parts,
 * with reasoning, tool calls and tool results split out as their own items in place.
 * System and developer messages stay message items where they are (no `instructions`), so a
 * mid-conversation system message keeps its position.
 */
export function convertMessagesToInput(messages: CanonicalMessage[], warn: Warn): UpstreamInputItem[] {
  const items: UpstreamInputItem[] = [];
  for (const [messageIndex, message] of messages.entries()) {
    const role: MessageRole = message.role === 'tool' ? 'user' : message.role;
    let pending: ContentPart[] = [];
    const flush = (): void => {
      if (pending.length === 0) return;
      items.push(messageItem(role, pending, messageIndex, warn));
      pending = [];
    };
    for (const [partIndex, part] of message.content.entries()) {
      switch (part.type) {
        case 'tool-call':
          flush();
          // The 64-char call_id cap (protocols.md §4.1) applies to the call and its result alike.
          items.push({
            type: 'function_call',
            call_id: mapToolCallId(part.id),
            name: part.name,
            arguments: part.arguments,
          });
          break;
        case 'tool-result':
          flush();
          items.push(functionCallOutput(part, `messages[${messageIndex}].content[${partIndex}]`, warn));
          break;
        case 'reasoning': {
          flush();
          const reasoning = reasoningItem(part);
          if (reasoning !== undefined) items.push(reasoning);
          break;
        }
        default:
          pending.push(part);
      }
    }
    flush();
  }
  return items;
}

function messageItem(role: MessageRole, parts: ContentPart[], messageIndex: number, warn: Warn): UpstreamInputItem {
  if (role === 'assistant') {
    const content: MessageContent[] = [];
    for (const part of parts) {
      if (part.type === 'text') content.push(outputText(part.text));
      else if (part.type === 'refusal') content.push(outputRefusal(part.text));
      else warn(`Dropped ${part.type} content of an assistant message: Responses assistant messages hold only text.`);
    }
    return { type: 'message', role, content };
  }
  return { type: 'message', role, content: parts.map((part) => inputPart(part, `messages[${messageIndex}]`)) };
}

function inputPart(part: ContentPart, param: string): InputContentPart {
  switch (part.type) {
    case 'text':
    case 'refusal':
      return { type: 'input_text', text: part.text };
    case 'image':
      return imageFromCanonical(part);
    case 'file':
      return fileFromCanonical(part);
    default:
      // Dropping audio would answer a different question than the client asked.
      throw new GatewayError('invalid_request', `The Responses API does not accept ${part.type} input.`, { param });
  }
}

function functionCallOutput(part: ToolResultPart, param: string, warn: Warn): UpstreamInputItem {
  if (part.isError === true) warn('Tool results were sent without their error flag: Responses outputs have none.');
  const content = part.content;
  let output: string | InputContentPart[];
  if (typeof content === 'string') output = content;
  else if (content.every((entry) => entry.type === 'text')) output = content.map((entry) => entry.text).join('\n');
  else output = content.map((entry, entryIndex) => inputPart(entry, `${param}.content[${entryIndex}]`));
  return { type: 'function_call_output', call_id: mapToolCallId(part.callId), output };
}

/** Only a Responses upstream can read its own `encrypted_content`; other reasoning is not replayable there. */
function reasoningItem(part: ReasoningPart): UpstreamInputItem | undefined {
  if (part.signature?.origin !== 'responses') return undefined;
  return {
    type: 'reasoning',
    ...(part.id === undefined ? {} : { id: part.id }),
    summary: part.text === '' ? [] : [summaryText(part.text)],
    encrypted_content: part.signature.value,
  };
}
