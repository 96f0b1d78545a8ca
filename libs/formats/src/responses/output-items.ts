/**
 * Output items as Switchyard writes them (protocols.md §4.2, §4.4). The non-streaming answer
 * and the stream encoder build items through these constructors, so an item in
 * `response.completed` is byte-identical to the one in its `output_item.done`.
 */

export type ItemStatus = 'in_progress' | 'completed';

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
}

export interface OutputRefusal {
  type: 'refusal';
  refusal: string;
}

export type MessageContent = OutputText | OutputRefusal;

export interface MessageItem {
  id: string;
  type: 'message';
  status: ItemStatus;
  role: 'assistant';
  content: MessageContent[];
}

export interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: ItemStatus;
}

export interface SummaryText {
  type: 'summary_text';
  text: string;
}

export interface ReasoningItem {
  type: 'reasoning';
  id: string;
  summary: SummaryText[];
  encrypted_content?: string;
}

export type OutputItem = MessageItem | FunctionCallItem | ReasoningItem;

export function outputText(text: string): OutputText {
  return { type: 'output_text', text, annotations: [] };
}

export function outputRefusal(refusal: string): OutputRefusal {
  return { type: 'refusal', refusal };
}

export function messageItem(id: string, status: ItemStatus, content: MessageContent[]): MessageItem {
  return { id, type: 'message', status, role: 'assistant', content };
}

export function functionCallItem(
  id: string,
  callId: string,
  name: string,
  callArguments: string,
  status: ItemStatus,
): FunctionCallItem {
  return { type: 'function_call', id, call_id: callId, name, arguments: callArguments, status };
}

/** An empty summary is `[]`, never a part with empty text (what the vendor sends when summaries are off). */
export function reasoningItem(id: string, summary: string, encryptedContent: string | undefined): ReasoningItem {
  const item: ReasoningItem = { type: 'reasoning', id, summary: summary === '' ? [] : [summaryText(summary)] };
  if (encryptedContent !== undefined) item.encrypted_content = encryptedContent;
  return item;
}

export function summaryText(text: string): SummaryText {
  return { type: 'summary_text', text };
}
