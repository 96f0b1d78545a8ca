import type { ContentPart } from '@switchyard/canonical';
import { itemIdFor } from './build-response-object.ts';
import { reasoningToCanonical } from './convert-reasoning.ts';
import {
  functionCallItem,
  messageItem,
  outputRefusal,
  outputText,
  reasoningItem,
  type MessageContent,
  type OutputItem,
} from './output-items.ts';
import { isKnownOutputItem, type UpstreamOutputItem } from './response-schema.ts';

/** Output items ↔ canonical assistant content (protocols.md §4.2), for non-streaming answers. */

export function outputItemsToCanonical(items: UpstreamOutputItem[]): ContentPart[] {
  const content: ContentPart[] = [];
  for (const item of items) {
    if (!isKnownOutputItem(item)) continue;
    switch (item.type) {
      case 'message':
        for (const part of item.content) {
          if (part.type === 'output_text') content.push({ type: 'text', text: part.text });
          else content.push({ type: 'refusal', text: part.refusal });
        }
        break;
      case 'function_call':
        // Tool results reference call_id, never the fc_ item id.
        content.push({ type: 'tool-call', id: item.call_id, name: item.name, arguments: item.arguments });
        break;
      case 'reasoning':
        content.push(reasoningToCanonical(item));
        break;
    }
  }
  return content;
}

/**
 * Consecutive text and refusal parts share one message item. Reasoning keeps its upstream
 * `rs_` id when it has one, since a client replays it to that upstream with its
 * encrypted_content. Media output has no Responses message content and is left out.
 */
export function outputItemsFromCanonical(content: ContentPart[], responseId: string): OutputItem[] {
  const items: OutputItem[] = [];
  let messageContent: MessageContent[] = [];
  const flush = (): void => {
    if (messageContent.length === 0) return;
    items.push(messageItem(itemIdFor('msg', responseId, items.length), 'completed', messageContent));
    messageContent = [];
  };
  for (const part of content) {
    switch (part.type) {
      case 'text':
        messageContent.push(outputText(part.text));
        break;
      case 'refusal':
        messageContent.push(outputRefusal(part.text));
        break;
      case 'reasoning':
        flush();
        items.push(
          reasoningItem(
            part.id ?? itemIdFor('rs', responseId, items.length),
            part.text,
            part.signature?.origin === 'responses' ? part.signature.value : undefined,
          ),
        );
        break;
      case 'tool-call':
        flush();
        items.push(
          functionCallItem(itemIdFor('fc', responseId, items.length), part.id, part.name, part.arguments, 'completed'),
        );
        break;
      default:
        break;
    }
  }
  flush();
  return items;
}
