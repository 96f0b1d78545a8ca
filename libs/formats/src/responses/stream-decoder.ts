import { GatewayError } from '@switchyard/canonical';
import type { StreamPart } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import { createId } from '../shared/index.ts';
import type { StreamDecoder } from '../wire-format.ts';
import { encryptedContentSignature } from './convert-reasoning.ts';
import { usageToCanonical } from './convert-usage.ts';
import { errorFromCode } from './map-error-code.ts';
import { mapStatusToFinishReason } from './map-status.ts';
import {
  asObject,
  numberField,
  objectField,
  parseWireObject,
  stringField,
  type WireObject,
} from './read-wire-object.ts';
import { readTextDelta } from './read-text-delta.ts';

interface OpenCall {
  index: number;
  /** Whether any argument delta arrived; if none did, the full arguments come from `.done`. */
  streamed: boolean;
}

/**
 * Responses upstream events → canonical stream parts (protocols.md §4.4, §11.5). Deltas map
 * one to one; `.done` events only matter where they carry something no delta did (a reasoning
 * item's encrypted_content, arguments an upstream sent whole). Unknown and hosted-tool event
 * families are skipped.
 */
export function createStreamDecoder(): StreamDecoder {
  let started = false;
  let ended = false;
  let toolCallCount = 0;
  /** Whether the open content part got deltas; a part that got none has its text only on `.done`. */
  let partStreamed = false;
  /** Function-call item id → its ordinal: argument deltas name the item, not the call. */
  const calls = new Map<string, OpenCall>();

  function ensureStarted(parts: StreamPart[], response: WireObject | undefined): void {
    if (started) return;
    started = true;
    parts.push({
      type: 'start',
      id: stringField(response, 'id') ?? createId('resp_'),
      model: stringField(response, 'model') ?? '',
      created: numberField(response, 'created_at') ?? Math.floor(Date.now() / 1000),
    });
  }

  function finish(parts: StreamPart[], part: StreamPart): StreamPart[] {
    ended = true;
    parts.push(part);
    return parts;
  }

  function outputText(text: string | undefined): StreamPart[] {
    const parts: StreamPart[] = [];
    if (text === undefined || text === '') return parts;
    ensureStarted(parts, undefined);
    parts.push({ type: 'text-delta', text });
    partStreamed = true;
    return parts;
  }

  function startCall(parts: StreamPart[], item: WireObject): OpenCall {
    const call = { index: toolCallCount++, streamed: false };
    calls.set(itemKey(item), call);
    parts.push({
      type: 'tool-call-start',
      index: call.index,
      // Tool results reference call_id, never the fc_ item id.
      id: stringField(item, 'call_id') ?? '',
      name: stringField(item, 'name') ?? '',
    });
    return call;
  }

  function itemDone(parts: StreamPart[], item: WireObject): void {
    const type = item['type'];
    if (type === 'function_call') {
      const call = calls.get(itemKey(item)) ?? startCall(parts, item);
      const fullArguments = stringField(item, 'arguments');
      if (!call.streamed && fullArguments !== undefined && fullArguments !== '') {
        parts.push({ type: 'tool-call-delta', index: call.index, argumentsDelta: fullArguments });
      }
      parts.push({ type: 'tool-call-end', index: call.index });
    } else if (type === 'reasoning') {
      // encrypted_content is final only on `.done` (protocols.md §4.4).
      const encrypted = stringField(item, 'encrypted_content');
      const id = stringField(item, 'id');
      parts.push({
        type: 'reasoning-end',
        ...(encrypted === undefined ? {} : { signature: encryptedContentSignature(encrypted) }),
        ...(id === undefined ? {} : { id }),
      });
    }
  }

  return {
    push(event: SseEvent): StreamPart[] {
      if (ended) return [];
      if (event.event === undefined || event.event === 'response.output_text.delta') {
        const text = readTextDelta(event.data);
        if (text !== undefined) return outputText(text);
      }
      const data = parseWireObject(event.data);
      const parts: StreamPart[] = [];
      if (data === undefined) return finish(parts, { type: 'error', error: unreadableStreamEvent() });
      const type = data['type'] ?? event.event;
      switch (type) {
        case 'response.created':
          ensureStarted(parts, objectField(data, 'response'));
          return parts;
        case 'response.output_text.delta':
        case 'response.refusal.delta':
        case 'response.reasoning_summary_text.delta':
        case 'response.reasoning_text.delta': {
          const delta = stringField(data, 'delta');
          if (type === 'response.output_text.delta') return outputText(delta);
          if (delta === undefined || delta === '') return parts;
          ensureStarted(parts, undefined);
          if (type === 'response.refusal.delta') parts.push({ type: 'refusal-delta', text: delta });
          else parts.push(reasoningDelta(delta, data));
          partStreamed ||= type === 'response.refusal.delta';
          return parts;
        }
        case 'response.content_part.added':
          partStreamed = false;
          return parts;
        case 'response.output_text.done':
        case 'response.refusal.done': {
          const text = stringField(data, type === 'response.output_text.done' ? 'text' : 'refusal');
          if (partStreamed || text === undefined || text === '') return parts;
          partStreamed = true;
          ensureStarted(parts, undefined);
          parts.push({ type: type === 'response.output_text.done' ? 'text-delta' : 'refusal-delta', text });
          return parts;
        }
        case 'response.reasoning_summary_part.added':
          // Summary parts are paragraphs; join them the way the non-streaming decoder does.
          if ((numberField(data, 'summary_index') ?? 0) > 0) parts.push(reasoningDelta('\n\n', data));
          return parts;
        case 'response.output_item.added': {
          const item = objectField(data, 'item');
          if (item?.['type'] !== 'function_call') return parts;
          ensureStarted(parts, undefined);
          startCall(parts, item);
          return parts;
        }
        case 'response.function_call_arguments.delta': {
          const call = calls.get(stringField(data, 'item_id') ?? '');
          const delta = stringField(data, 'delta');
          if (call === undefined || delta === undefined || delta === '') return parts;
          call.streamed = true;
          parts.push({ type: 'tool-call-delta', index: call.index, argumentsDelta: delta });
          return parts;
        }
        case 'response.output_item.done': {
          const item = objectField(data, 'item');
          if (item === undefined) return parts;
          ensureStarted(parts, undefined);
          itemDone(parts, item);
          return parts;
        }
        case 'response.completed':
        case 'response.incomplete': {
          const response = objectField(data, 'response');
          ensureStarted(parts, response);
          const output = response?.['output'];
          const hasCalls = toolCallCount > 0 || (Array.isArray(output) && output.some(isFunctionCall));
          const status =
            stringField(response, 'status') ?? (type === 'response.completed' ? 'completed' : 'incomplete');
          const reason = stringField(objectField(response, 'incomplete_details'), 'reason');
          return finish(parts, {
            type: 'finish',
            finishReason: mapStatusToFinishReason(status, reason, hasCalls),
            usage: usageToCanonical(response?.['usage']),
          });
        }
        case 'response.failed':
          return finish(parts, { type: 'error', error: errorFromFailedEvent(data) });
        case 'error':
          return finish(parts, { type: 'error', error: errorFromErrorEvent(data) });
        default:
          return parts;
      }
    },

    end(): StreamPart[] {
      if (ended) return [];
      ended = true;
      return [{ type: 'error', error: streamEndedIncomplete() }];
    },
  };
}

/** An event whose data is not a JSON object: it ends the stream. */
export function unreadableStreamEvent(): GatewayError {
  return new GatewayError('upstream_error', 'The upstream sent an unreadable stream event.');
}

/** Closing without a terminal event is a truncated answer, never a clean finish (protocols.md §7.3). */
export function streamEndedIncomplete(): GatewayError {
  return new GatewayError('upstream_error', 'The upstream stream ended before the response was complete.');
}

/** The error of a `response.failed` event. */
export function errorFromFailedEvent(data: WireObject): GatewayError {
  const error = objectField(objectField(data, 'response'), 'error');
  return errorFromCode(stringField(error, 'code'), stringField(error, 'message'));
}

/** The error of an `error` event: the spec's is flat; some servers nest the payload under `error`. */
export function errorFromErrorEvent(data: WireObject): GatewayError {
  const source = objectField(data, 'error') ?? data;
  return errorFromCode(stringField(source, 'code'), stringField(source, 'message'), stringField(source, 'param'));
}

function reasoningDelta(text: string, data: WireObject): StreamPart {
  const id = stringField(data, 'item_id');
  return id === undefined ? { type: 'reasoning-delta', text } : { type: 'reasoning-delta', text, id };
}

function isFunctionCall(item: unknown): boolean {
  return asObject(item)?.['type'] === 'function_call';
}

/** Function-call items may lack `id` (it is optional in the spec); their call_id is unique too. */
function itemKey(item: WireObject): string {
  return stringField(item, 'id') ?? stringField(item, 'call_id') ?? '';
}
