import { GatewayError } from '@switchyard/canonical';
import type { CanonicalMessage, ContentPart, Role, ToolResultPart } from '@switchyard/canonical';
import { contentPartToCanonical, inputPartToCanonical } from './convert-content-parts.ts';
import { reasoningToCanonical } from './convert-reasoning.ts';
import { isRepresentableItem, type InputItem, type RepresentableInputItem } from './schema.ts';

type FunctionCallOutputItem = Extract<RepresentableInputItem, { type: 'function_call_output' }>;

/**
 * `instructions` + `input` → canonical messages (protocols.md §4.1, §10.1). Assistant-side items
 * of one turn (reasoning, assistant message, function_call) join one assistant message, and
 * consecutive function_call_output items one tool message, as the other formats need them.
 */
export function convertInputItems(
  input: string | InputItem[] | null | undefined,
  instructions: string | null | undefined,
): CanonicalMessage[] {
  const messages: CanonicalMessage[] = [];
  if (instructions != null) messages.push({ role: 'system', content: [{ type: 'text', text: instructions }] });
  if (input == null) return messages;
  if (typeof input === 'string') {
    messages.push({ role: 'user', content: [{ type: 'text', text: input }] });
    return messages;
  }
  // generate-content needs the tool name on results; it is only known from the matching call.
  const toolNames = new Map<string, string>();
  for (const [index, item] of input.entries()) {
    const param = `input[${index}]`;
    if (!isRepresentableItem(item)) throw unsupportedItem(item.type, param);
    switch (item.type) {
      case undefined:
      case 'message': {
        const content =
          typeof item.content === 'string'
            ? [{ type: 'text' as const, text: item.content }]
            : item.content.map((part, partIndex) => contentPartToCanonical(part, `${param}.content[${partIndex}]`));
        if (item.role === 'assistant') appendToTurn(messages, 'assistant', content);
        else messages.push({ role: item.role, content });
        break;
      }
      case 'function_call':
        toolNames.set(item.call_id, item.name);
        appendToTurn(messages, 'assistant', [
          { type: 'tool-call', id: item.call_id, name: item.name, arguments: item.arguments },
        ]);
        break;
      case 'function_call_output':
        appendToTurn(messages, 'tool', [toolResult(item, toolNames.get(item.call_id), param)]);
        break;
      case 'reasoning':
        appendToTurn(messages, 'assistant', [reasoningToCanonical(item)]);
        break;
    }
  }
  return messages;
}

function appendToTurn(messages: CanonicalMessage[], role: Role, parts: ContentPart[]): void {
  const last = messages.at(-1);
  if (last?.role === role) last.content.push(...parts);
  else messages.push({ role, content: parts });
}

function toolResult(item: FunctionCallOutputItem, name: string | undefined, param: string): ToolResultPart {
  const content =
    typeof item.output === 'string'
      ? item.output
      : item.output.map((part, partIndex) => inputPartToCanonical(part, `${param}.output[${partIndex}]`));
  const part: ToolResultPart = { type: 'tool-result', callId: item.call_id, content };
  if (name !== undefined) part.name = name;
  return part;
}

function unsupportedItem(type: string | undefined, param: string): GatewayError {
  const reason =
    type === 'item_reference'
      ? 'Switchyard does not resolve item references; send the referenced item itself.'
      : 'Switchyard translates only message, function_call, function_call_output and reasoning items.';
  return new GatewayError('invalid_request', `Input item type '${type}' is not supported. ${reason}`, { param });
}
