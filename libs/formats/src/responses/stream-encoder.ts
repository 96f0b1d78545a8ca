import type { CanonicalUsage, FinishReason, StreamPart, VendorSignature } from '@switchyard/canonical';
import { createId } from '../shared/index.ts';
import type { ResponseContext, StreamEncoder } from '../wire-format.ts';
import { buildResponseObject, itemIdFor, responseIdFor } from './build-response-object.ts';
import { usageFromCanonical } from './convert-usage.ts';
import { createEventWriter, locatorOf, type Locator } from './create-event-writer.ts';
import { mapFinishReasonToOutcome } from './map-status.ts';
import {
  functionCallItem,
  messageItem,
  outputRefusal,
  outputText,
  reasoningItem,
  summaryText,
  type MessageContent,
  type OutputItem,
} from './output-items.ts';

interface OpenMessage {
  id: string;
  outputIndex: number;
  content: MessageContent[];
  part: { kind: 'output_text' | 'refusal'; text: string; locator: Locator } | undefined;
}

interface OpenReasoning {
  id: string;
  outputIndex: number;
  text: string;
  /** The summary part opens on the first delta: reasoning with no summary has none. */
  summaryOpen: boolean;
  locator: Locator;
}

interface OpenCall {
  id: string;
  callId: string;
  name: string;
  outputIndex: number;
  arguments: string;
  locator: Locator;
}

const TERMINAL_EVENT = {
  completed: 'response.completed',
  incomplete: 'response.incomplete',
  failed: 'response.failed',
} as const;

/**
 * Canonical parts → Responses SSE (protocols.md §4.4, §11.4). The encoder owns item
 * bookkeeping: it opens a message, reasoning or function_call item when its first part arrives,
 * closes it with the full `.done` events when something else starts, and closes every open item
 * before the terminal event, because the openai SDK's stream helper throws on an item left open.
 * Items get increasing `output_index`, events a `sequence_number` counting from 0.
 */
export function createStreamEncoder(context: ResponseContext): StreamEncoder {
  const writer = createEventWriter();
  let finished = false;
  let responseId = '';
  let createdAt = 0;
  const output: OutputItem[] = [];
  let message: OpenMessage | undefined;
  let reasoning: OpenReasoning | undefined;
  /** By canonical tool-call index. */
  const calls = new Map<number, OpenCall>();

  function start(id: string, created: number): void {
    responseId = responseIdFor(id);
    createdAt = created;
    const response = buildResponseObject({
      id: responseId,
      createdAt,
      model: context.model,
      status: 'in_progress',
      output: [],
      usage: null,
    });
    writer.event('response.created', { response });
    writer.event('response.in_progress', { response });
  }

  function ensureStarted(): void {
    if (responseId === '') start(createId('resp_'), Math.floor(Date.now() / 1000));
  }

  function openItem(item: OutputItem): void {
    writer.event('response.output_item.added', { output_index: output.length, item });
    output.push(item);
  }

  function closeItem(outputIndex: number, item: OutputItem): void {
    output[outputIndex] = item;
    writer.event('response.output_item.done', { output_index: outputIndex, item });
  }

  function openMessage(): OpenMessage {
    ensureStarted();
    closeReasoning();
    const outputIndex = output.length;
    const id = itemIdFor('msg', responseId, outputIndex);
    const open: OpenMessage = { id, outputIndex, content: [], part: undefined };
    openItem(messageItem(open.id, 'in_progress', []));
    message = open;
    return open;
  }

  function messageDelta(kind: 'output_text' | 'refusal', text: string): void {
    const open = message ?? openMessage();
    let part = open.part;
    if (part?.kind !== kind) {
      closeMessagePart(open);
      const contentIndex = open.content.length;
      const locator = locatorOf(open.id, open.outputIndex, `,"content_index":${contentIndex}`);
      part = { kind, text: '', locator };
      open.part = part;
      writer.event('response.content_part.added', {
        item_id: open.id,
        output_index: open.outputIndex,
        content_index: contentIndex,
        part: kind === 'output_text' ? outputText('') : outputRefusal(''),
      });
    }
    part.text += text;
    if (kind === 'output_text') writer.delta('response.output_text.delta', part.locator, text, ',"logprobs":[]');
    else writer.delta('response.refusal.delta', part.locator, text, '');
  }

  function closeMessagePart(open: OpenMessage): void {
    const part = open.part;
    if (part === undefined) return;
    open.part = undefined;
    const location = { item_id: open.id, output_index: open.outputIndex, content_index: open.content.length };
    const content = part.kind === 'output_text' ? outputText(part.text) : outputRefusal(part.text);
    open.content.push(content);
    if (part.kind === 'output_text') {
      writer.event('response.output_text.done', { ...location, text: part.text, logprobs: [] });
    } else {
      writer.event('response.refusal.done', { ...location, refusal: part.text });
    }
    writer.event('response.content_part.done', { ...location, part: content });
  }

  function closeMessage(): void {
    if (message === undefined) return;
    const open = message;
    message = undefined;
    closeMessagePart(open);
    closeItem(open.outputIndex, messageItem(open.id, 'completed', open.content));
  }

  function openReasoning(id: string | undefined): OpenReasoning {
    ensureStarted();
    closeMessage();
    const outputIndex = output.length;
    const itemId = id ?? itemIdFor('rs', responseId, outputIndex);
    const locator = locatorOf(itemId, outputIndex, ',"summary_index":0');
    const open: OpenReasoning = { id: itemId, outputIndex, text: '', summaryOpen: false, locator };
    openItem(reasoningItem(itemId, '', undefined));
    reasoning = open;
    return open;
  }

  function reasoningDelta(text: string, id: string | undefined): void {
    // A new upstream reasoning item is a new output item, not more of the open one.
    if (reasoning !== undefined && id !== undefined && id !== reasoning.id) closeReasoning();
    const open = reasoning ?? openReasoning(id);
    if (!open.summaryOpen) {
      open.summaryOpen = true;
      writer.event('response.reasoning_summary_part.added', {
        item_id: open.id,
        output_index: open.outputIndex,
        summary_index: 0,
        part: summaryText(''),
      });
    }
    open.text += text;
    writer.delta('response.reasoning_summary_text.delta', open.locator, text, '');
  }

  function closeReasoning(signature?: VendorSignature): void {
    if (reasoning === undefined) return;
    const open = reasoning;
    reasoning = undefined;
    if (open.summaryOpen) {
      const location = { item_id: open.id, output_index: open.outputIndex, summary_index: 0 };
      writer.event('response.reasoning_summary_text.done', { ...location, text: open.text });
      writer.event('response.reasoning_summary_part.done', { ...location, part: summaryText(open.text) });
    }
    // Only a Responses upstream's encrypted_content is replayable by a Responses client.
    const encrypted = signature?.origin === 'responses' ? signature.value : undefined;
    closeItem(open.outputIndex, reasoningItem(open.id, open.text, encrypted));
  }

  function openCall(index: number, callId: string, name: string): void {
    // A repeated start would open a second item under one index, one the SDK never sees closed.
    if (calls.has(index)) return;
    ensureStarted();
    closeMessage();
    closeReasoning();
    const outputIndex = output.length;
    const id = itemIdFor('fc', responseId, outputIndex);
    calls.set(index, { id, callId, name, outputIndex, arguments: '', locator: locatorOf(id, outputIndex) });
    openItem(functionCallItem(id, callId, name, '', 'in_progress'));
  }

  function closeCall(index: number): void {
    const call = calls.get(index);
    if (call === undefined) return;
    calls.delete(index);
    // A call streamed without arguments means "no arguments"; clients JSON.parse this string.
    const callArguments = call.arguments === '' ? '{}' : call.arguments;
    writer.event('response.function_call_arguments.done', {
      item_id: call.id,
      output_index: call.outputIndex,
      arguments: callArguments,
      name: call.name,
    });
    closeItem(call.outputIndex, functionCallItem(call.id, call.callId, call.name, callArguments, 'completed'));
  }

  /** Closes what is still open, in output order: an open message may sit after open calls. */
  function closeAll(): void {
    const open: Array<{ outputIndex: number; close: () => void }> = [];
    for (const [index, call] of calls) open.push({ outputIndex: call.outputIndex, close: () => closeCall(index) });
    if (message !== undefined) open.push({ outputIndex: message.outputIndex, close: closeMessage });
    if (reasoning !== undefined) open.push({ outputIndex: reasoning.outputIndex, close: () => closeReasoning() });
    open.sort((left, right) => left.outputIndex - right.outputIndex);
    for (const item of open) item.close();
  }

  function finish(finishReason: FinishReason, usage: CanonicalUsage): void {
    ensureStarted();
    closeAll();
    const outcome = mapFinishReasonToOutcome(finishReason);
    const response = buildResponseObject({
      id: responseId,
      createdAt,
      model: context.model,
      status: outcome.status,
      incompleteDetails: outcome.incompleteDetails,
      output,
      usage: usageFromCanonical(usage),
    });
    writer.event(TERMINAL_EVENT[outcome.status], { response });
  }

  function handle(part: StreamPart): void {
    switch (part.type) {
      case 'start':
        if (responseId === '') start(part.id, part.created);
        return;
      case 'text-delta':
        if (part.text !== '') messageDelta('output_text', part.text);
        return;
      case 'refusal-delta':
        if (part.text !== '') messageDelta('refusal', part.text);
        return;
      case 'reasoning-delta':
        if (part.text !== '') reasoningDelta(part.text, part.id);
        return;
      case 'reasoning-end':
        // Reasoning without summary text still becomes an item: it carries encrypted_content.
        if (reasoning === undefined) openReasoning(part.id);
        closeReasoning(part.signature);
        return;
      case 'tool-call-start':
        openCall(part.index, part.id, part.name);
        return;
      case 'tool-call-delta': {
        const call = calls.get(part.index);
        if (call === undefined || part.argumentsDelta === '') return;
        call.arguments += part.argumentsDelta;
        writer.delta('response.function_call_arguments.delta', call.locator, part.argumentsDelta, '');
        return;
      }
      case 'tool-call-end':
        closeCall(part.index);
        return;
      case 'file':
        // Generated media has no place in Responses message content.
        return;
      case 'finish':
        finished = true;
        finish(part.finishReason, part.usage);
        return;
      case 'error':
        finished = true;
        writer.error(part.error);
        return;
      default: {
        const exhaustive: never = part;
        return exhaustive;
      }
    }
  }

  return {
    push(part: StreamPart): string {
      if (finished) return '';
      handle(part);
      return writer.take();
    },
  };
}
