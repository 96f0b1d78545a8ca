import { GatewayError, type StreamPart } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import { createId, isRecord } from '../shared/index.ts';
import type { StreamDecoder } from '../wire-format.ts';
import { convertPartToCanonical } from './convert-parts.ts';
import { convertUsageToCanonical } from './convert-usage.ts';
import { errorFromUpstream } from './errors.ts';
import { isPlainChunk } from './is-plain-chunk.ts';
import { mapFinishReasonToCanonical } from './map-finish-reason.ts';
import { generateContentResponseSchema, type GenerateContentResponse, type UsageMetadata } from './response-schema.ts';
import type { Part } from './schema.ts';

/**
 * One non-blank event read as the decoder reads it: the checked chunk, or the error that ends
 * the stream (the Google error envelope, text that is not JSON, JSON that is no
 * GenerateContentResponse). Shared with the relay monitor.
 */
export function readStreamChunk(data: string): GenerateContentResponse | GatewayError {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (error) {
    return new GatewayError('upstream_error', 'The upstream stream sent an event that is not JSON.', { cause: error });
  }
  // An error after HTTP 200 arrives as one more event holding the Google error envelope (§7.3).
  if (isRecord(value) && isRecord(value.error)) {
    return errorFromUpstream(typeof value.error.code === 'number' ? value.error.code : 500, value);
  }
  if (isPlainChunk(value)) return value;
  const parsed = generateContentResponseSchema.safeParse(value);
  if (!parsed.success) {
    return new GatewayError('upstream_error', 'The upstream stream sent a chunk that is not a GenerateContentResponse.', { cause: parsed.error });
  }
  return parsed.data;
}

/** EOF without any finish or block reason: the stream was cut off (or never began). */
export function streamEndedEarly(started: boolean): GatewayError {
  const message = started ? 'The upstream stream ended before its finish reason.' : 'The upstream stream ended without sending anything.';
  return new GatewayError('upstream_error', message);
}

/**
 * `:streamGenerateContent?alt=sse` events → canonical stream parts (protocols.md §6.4, §11.6).
 * Each chunk is a whole GenerateContentResponse with only the new parts; a functionCall arrives
 * whole and becomes start + one delta + end. `usageMetadata` is a running snapshot, so the last
 * one wins (never summed, §12.12). Some backends put `finishReason` on every chunk, so the
 * decoder reads to EOF and decides the finish there. A stream that ends without any finish
 * reason was cut off and ends in an error part. An error before the first chunk yields the
 * error part alone: nothing has started, so the caller may still retry elsewhere.
 */
export function createStreamDecoder(): StreamDecoder {
  let started = false;
  let done = false;
  let toolCalls = 0;
  let finishReason: string | undefined;
  let blockReason: string | undefined;
  let usage: UsageMetadata | undefined;

  function fail(error: GatewayError): StreamPart[] {
    done = true;
    return [{ type: 'error', error }];
  }

  function decodePart(part: Part, out: StreamPart[]): void {
    const converted = convertPartToCanonical(part, 'file');
    switch (converted?.type) {
      case 'text':
        if (converted.text !== '' || converted.signature !== undefined) {
          out.push({ type: 'text-delta', text: converted.text, ...(converted.signature && { signature: converted.signature }) });
        }
        break;
      case 'reasoning':
        if (converted.text !== '') out.push({ type: 'reasoning-delta', text: converted.text });
        if (converted.signature !== undefined) out.push({ type: 'reasoning-end', signature: converted.signature });
        break;
      case 'tool-call': {
        const index = toolCalls++;
        out.push(
          { type: 'tool-call-start', index, id: converted.id, name: converted.name },
          { type: 'tool-call-delta', index, argumentsDelta: converted.arguments },
          { type: 'tool-call-end', index, ...(converted.signature && { signature: converted.signature }) },
        );
        break;
      }
      case 'file':
        if (converted.source.kind === 'base64') out.push({ type: 'file', mediaType: converted.source.mediaType, data: converted.source.data });
        break;
      default:
        break;
    }
  }

  return {
    push(event: SseEvent): StreamPart[] {
      if (done || event.data.trim() === '') return [];
      const chunk = readStreamChunk(event.data);
      if (chunk instanceof GatewayError) return fail(chunk);
      const out: StreamPart[] = [];
      if (!started) {
        started = true;
        out.push({ type: 'start', id: chunk.responseId ?? createId('resp_'), model: chunk.modelVersion ?? '', created: Math.floor(Date.now() / 1000) });
      }
      if (chunk.usageMetadata != null) usage = chunk.usageMetadata;
      if (chunk.promptFeedback?.blockReason != null) blockReason = chunk.promptFeedback.blockReason;
      const candidate = chunk.candidates?.[0];
      for (const part of candidate?.content?.parts ?? []) decodePart(part, out);
      if (candidate?.finishReason != null) finishReason = candidate.finishReason;
      return out;
    },

    end(): StreamPart[] {
      if (done) return [];
      if (finishReason === undefined && blockReason === undefined) return fail(streamEndedEarly(started));
      done = true;
      return [
        {
          type: 'finish',
          finishReason: mapFinishReasonToCanonical({ finishReason, blockReason, sawToolCall: toolCalls > 0 }),
          usage: convertUsageToCanonical(usage),
        },
      ];
    },
  };
}
