import { GatewayError, type StreamPart } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import type { StreamDecoder } from '../wire-format.ts';
import { convertInputUsageToCanonical, convertUsageToCanonical, mergeUsage, type MessagesUsage } from './convert-usage.ts';
import { errorFromStreamEvent } from './errors.ts';
import { mapStopReasonToCanonical } from './map-stop-reason.ts';
import { parseStreamEvent, type MessagesStreamEvent } from './parse-stream-event.ts';
import { readTextDelta } from './read-text-delta.ts';

/** An event whose data is not a JSON object: it ends the stream. */
export function unreadableStreamEvent(): GatewayError {
  return new GatewayError('upstream_error', 'The upstream sent a stream event that is not a JSON object.');
}

/** EOF before `message_stop`: a truncated answer. */
export function streamEndedBeforeStop(): GatewayError {
  return new GatewayError('upstream_error', 'The upstream stream ended before message_stop.');
}

/** What an open content block is, by its messages index. */
type Block =
  | { kind: 'text' }
  | { kind: 'tool'; ordinal: number }
  | { kind: 'thinking'; signature: string }
  | { kind: 'redacted'; data: string }
  /** Server-tool calls and results: the vendor ran them, so the client has nothing to do. */
  | { kind: 'other' };

/**
 * messages upstream → canonical parts (protocols.md §11.3). Tool calls are numbered by their
 * ordinal among tool blocks, not by the messages block index. Thinking text streams as it comes;
 * its signature arrives last (`signature_delta`) and rides on `reasoning-end`.
 */
export function createStreamDecoder(): StreamDecoder {
  const blocks = new Map<number, Block>();
  const usage: MessagesUsage = {};
  let sawUsage = false;
  let toolCount = 0;
  let stopReason: string | null | undefined;
  let stopSequence: string | null | undefined;
  let done = false;

  function fail(error: GatewayError): StreamPart[] {
    done = true;
    return [{ type: 'error', error }];
  }

  function onMessageStart(event: MessagesStreamEvent): StreamPart[] {
    const message = event.message ?? {};
    if (mergeUsage(usage, message.usage)) sawUsage = true;
    const start: StreamPart = {
      type: 'start',
      id: message.id ?? '',
      model: message.model ?? '',
      created: Math.floor(Date.now() / 1000),
    };
    if (message.usage !== undefined && message.usage !== null) start.usage = convertInputUsageToCanonical(message.usage);
    return [start];
  }

  function onBlockStart(event: MessagesStreamEvent): StreamPart[] {
    const shell = event.content_block ?? {};
    const index = event.index ?? blocks.size;
    switch (shell.type) {
      case 'text':
        blocks.set(index, { kind: 'text' });
        return shell.text ? [{ type: 'text-delta', text: shell.text }] : [];
      case 'tool_use': {
        const ordinal = toolCount++;
        blocks.set(index, { kind: 'tool', ordinal });
        return [{ type: 'tool-call-start', index: ordinal, id: shell.id ?? '', name: shell.name ?? '' }];
      }
      case 'thinking':
        blocks.set(index, { kind: 'thinking', signature: '' });
        return shell.thinking ? [{ type: 'reasoning-delta', text: shell.thinking }] : [];
      case 'redacted_thinking':
        blocks.set(index, { kind: 'redacted', data: shell.data ?? '' });
        return [];
      default:
        blocks.set(index, { kind: 'other' });
        return [];
    }
  }

  /** Text for an open block; what an unknown block says is not the answer's. */
  function onTextDelta(index: number, text: string | undefined): StreamPart[] {
    return text && blocks.has(index) ? [{ type: 'text-delta', text }] : [];
  }

  function onBlockDelta(event: MessagesStreamEvent): StreamPart[] {
    const block = blocks.get(event.index ?? -1);
    const delta = event.delta;
    if (block === undefined || delta === undefined) return [];
    switch (delta.type) {
      case 'text_delta':
        return onTextDelta(event.index ?? -1, delta.text);
      case 'input_json_delta':
        return block.kind === 'tool' && delta.partial_json
          ? [{ type: 'tool-call-delta', index: block.ordinal, argumentsDelta: delta.partial_json }]
          : [];
      case 'thinking_delta':
        return delta.thinking ? [{ type: 'reasoning-delta', text: delta.thinking }] : [];
      case 'signature_delta':
        if (block.kind === 'thinking') block.signature += delta.signature ?? '';
        return [];
      default:
        // citations_delta and future kinds have no canonical part.
        return [];
    }
  }

  function onBlockStop(event: MessagesStreamEvent): StreamPart[] {
    const index = event.index ?? -1;
    const block = blocks.get(index);
    blocks.delete(index);
    switch (block?.kind) {
      case 'tool':
        return [{ type: 'tool-call-end', index: block.ordinal }];
      case 'thinking':
        return [
          block.signature === ''
            ? { type: 'reasoning-end' }
            : { type: 'reasoning-end', signature: { origin: 'messages', value: block.signature } },
        ];
      case 'redacted':
        return [{ type: 'reasoning-end', redactedData: block.data }];
      default:
        return [];
    }
  }

  return {
    push(sseEvent: SseEvent): StreamPart[] {
      // Pings are the vendor's keep-alives; the router sends its own.
      if (done || sseEvent.event === 'ping') return [];
      if (sseEvent.event === undefined || sseEvent.event === 'content_block_delta') {
        const delta = readTextDelta(sseEvent.data);
        if (delta !== undefined) return onTextDelta(delta.index, delta.text);
      }
      const event = parseStreamEvent(sseEvent.data);
      if (event === undefined) return fail(unreadableStreamEvent());
      switch (event.type) {
        case 'message_start':
          return onMessageStart(event);
        case 'content_block_start':
          return onBlockStart(event);
        case 'content_block_delta':
          return onBlockDelta(event);
        case 'content_block_stop':
          return onBlockStop(event);
        case 'message_delta':
          stopReason = event.delta?.stop_reason ?? stopReason;
          stopSequence = event.delta?.stop_sequence ?? stopSequence;
          if (mergeUsage(usage, event.usage)) sawUsage = true;
          return [];
        case 'message_stop':
          done = true;
          return [
            {
              type: 'finish',
              finishReason: mapStopReasonToCanonical(stopReason, stopSequence),
              usage: convertUsageToCanonical(sawUsage ? usage : undefined),
            },
          ];
        case 'error':
          return fail(errorFromStreamEvent(event));
        default:
          return [];
      }
    },
    end(): StreamPart[] {
      if (done) return [];
      return fail(streamEndedBeforeStop());
    },
  };
}
