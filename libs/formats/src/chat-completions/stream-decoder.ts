import { GatewayError } from '@switchyard/canonical';
import type { CanonicalUsage, FinishReason, StreamPart } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import { createId, isRecord } from '../shared/index.ts';
import type { StreamDecoder } from '../wire-format.ts';
import { convertToCanonicalUsage, missingUsage } from './convert-usage.ts';
import { errorFromUpstreamChunk } from './errors.ts';
import { mapToCanonicalFinishReason } from './map-finish-reason.ts';
import { isChatChunk } from './is-chat-chunk.ts';
import { readTextDelta } from './read-text-delta.ts';
import type { ChatChunk, ChatChunkToolCall } from './response-schema.ts';

/**
 * One chunk event read as the decoder reads it: the checked chunk, or the error that ends the
 * stream (an in-band error event, text that is not JSON, JSON that is no chat chunk). Shared
 * with the relay monitor, which reads the chunks that matter the same way.
 */
export function readStreamChunk(event: SseEvent): ChatChunk | GatewayError {
  let json: unknown;
  try {
    json = JSON.parse(event.data);
  } catch {
    if (event.event === 'error') return errorFromUpstreamChunk(event.data);
    return new GatewayError('upstream_error', 'The upstream sent a stream event that is not JSON.');
  }
  if (event.event === 'error' || (isRecord(json) && json.error != null)) return errorFromUpstreamChunk(json);
  if (!isChatChunk(json)) {
    return new GatewayError('upstream_error', 'The upstream sent a stream event that is not a chat completion chunk.');
  }
  return json;
}

/** `[DONE]` before any chunk with a choice or usage. */
export function streamEndedWithoutAnswer(): GatewayError {
  return new GatewayError('upstream_error', 'The upstream stream ended without an answer.');
}

/** EOF without `[DONE]`: the answer may be cut anywhere, and its usage is unknown (§7.3). */
export function streamEndedEarly(): GatewayError {
  return new GatewayError('upstream_error', 'upstream stream ended early');
}

/**
 * Upstream chat chunks → canonical stream parts (protocols.md §3.5, §11.1). Only the first
 * choice is read: translation serves n = 1.
 *
 * The finish reason arrives before the usage chunk, so it is remembered and `finish` is
 * emitted when usage arrives after it (on the finish chunk itself for servers that put it
 * there) or at `[DONE]`. Tool calls are accumulated by `tool_calls[].index`, never by id, and
 * all stay open until the finish reason: chat has no per-call end.
 */
export function createStreamDecoder(): StreamDecoder {
  let started = false;
  let ended = false;
  let finishReason: FinishReason | undefined;
  let usage: CanonicalUsage | undefined;
  /** upstream `tool_calls[].index` → ordinal of the call in this answer */
  const ordinals = new Map<number, number>();
  let callCount = 0;
  let callsClosed = false;
  let lastOrdinal: number | undefined;

  function fail(error: GatewayError): StreamPart[] {
    ended = true;
    return [{ type: 'error', error }];
  }

  function closeCalls(parts: StreamPart[]): void {
    if (callsClosed) return;
    callsClosed = true;
    for (let index = 0; index < callCount; index++) parts.push({ type: 'tool-call-end', index });
  }

  function finish(parts: StreamPart[]): void {
    closeCalls(parts);
    parts.push({
      type: 'finish',
      finishReason: finishReason ?? mapToCanonicalFinishReason(undefined),
      usage: usage ?? missingUsage(),
    });
    ended = true;
  }

  function pushToolCall(call: ChatChunkToolCall, parts: StreamPart[]): void {
    // Some compatible servers omit `index`: a fragment with an id then starts a call, one
    // without continues the latest.
    let ordinal = call.index == null ? (call.id == null ? lastOrdinal : undefined) : ordinals.get(call.index);
    if (ordinal === undefined) {
      ordinal = callCount++;
      if (call.index != null) ordinals.set(call.index, ordinal);
      parts.push({ type: 'tool-call-start', index: ordinal, id: call.id ?? createId('call_'), name: call.function?.name ?? '' });
    }
    lastOrdinal = ordinal;
    const argumentsDelta = call.function?.arguments;
    if (argumentsDelta) parts.push({ type: 'tool-call-delta', index: ordinal, argumentsDelta });
  }

  return {
    push(event: SseEvent): StreamPart[] {
      if (ended) return [];
      if (event.data === '[DONE]') {
        if (!started) return fail(streamEndedWithoutAnswer());
        const parts: StreamPart[] = [];
        finish(parts);
        return parts;
      }
      if (started) {
        const text = readTextDelta(event);
        if (text !== undefined) return text === '' ? [] : [{ type: 'text-delta', text }];
      }
      const chunk = readStreamChunk(event);
      if (chunk instanceof GatewayError) return fail(chunk);
      const choice = chunk.choices?.[0];
      const parts: StreamPart[] = [];
      if (!started) {
        // Azure may open with a chunk that has neither choices nor usage (prompt filter results).
        if (choice === undefined && chunk.usage == null) return parts;
        started = true;
        parts.push({
          type: 'start',
          id: chunk.id ?? '',
          model: chunk.model ?? '',
          created: chunk.created ?? Math.floor(Date.now() / 1000),
        });
      }
      const delta = choice?.delta;
      if (delta != null) {
        const reasoning = delta.reasoning_content ?? delta.reasoning;
        if (reasoning) parts.push({ type: 'reasoning-delta', text: reasoning });
        if (delta.content) parts.push({ type: 'text-delta', text: delta.content });
        if (delta.refusal) parts.push({ type: 'refusal-delta', text: delta.refusal });
        if (delta.tool_calls != null) for (const call of delta.tool_calls) pushToolCall(call, parts);
      }
      if (choice?.finish_reason != null) {
        finishReason = mapToCanonicalFinishReason(choice.finish_reason);
        closeCalls(parts);
      }
      if (chunk.usage != null) {
        usage = convertToCanonicalUsage(chunk.usage);
        if (finishReason !== undefined) finish(parts);
      }
      return parts;
    },

    end(): StreamPart[] {
      if (ended) return [];
      return fail(streamEndedEarly());
    },
  };
}
