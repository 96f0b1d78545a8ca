import { GatewayError, type StreamPart, type VendorSignature } from '@switchyard/canonical';
import type { ResponseContext, StreamEncoder } from '../wire-format.ts';
import { convertAnswerPartToGemini } from './convert-parts.ts';
import { convertUsageFromCanonical } from './convert-usage.ts';
import { renderStreamError } from './errors.ts';
import { mapFinishReasonFromCanonical } from './map-finish-reason.ts';

/** Every chunk opens the same way; text deltas are spliced in as strings, not built as objects. */
const CHUNK_START = 'data: {"candidates":[{"content":{"role":"model","parts":[';

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Canonical stream parts → `:streamGenerateContent?alt=sse` events (protocols.md §6.4, §11.6):
 * one `data:` line per event and no `event:`/`id:` lines (js-genai cannot see those events,
 * §2). Each chunk is a complete GenerateContentResponse holding only the new part. Tool calls
 * arrive whole on this wire, so argument fragments are buffered until the call ends. The last
 * chunk carries `finishReason` and `usageMetadata`, plus an empty text part: js-genai's chat
 * drops a turn from its history when any chunk has no parts.
 */
export function createStreamEncoder(context: ResponseContext): StreamEncoder {
  let chunkEnd = buildChunkEnd(context.requestId);
  const calls = new Map<number, PendingCall>();
  let closed = false;

  function chunk(partJson: string): string {
    return CHUNK_START + partJson + ']},"index":0}]' + chunkEnd;
  }

  function fail(error: GatewayError): string {
    closed = true;
    return renderStreamError(error, context.requestId);
  }

  function flushCall(index: number, signature: VendorSignature | undefined): string {
    const call = calls.get(index);
    if (call === undefined) return '';
    calls.delete(index);
    try {
      const part = convertAnswerPartToGemini(
        { type: 'tool-call', id: call.id, name: call.name, arguments: call.arguments, ...(signature && { signature }) },
        `toolCalls[${index}].arguments`,
      );
      return chunk(JSON.stringify(part));
    } catch (error) {
      if (!GatewayError.isInstance(error)) throw error;
      return fail(error);
    }
  }

  function buildChunkEnd(responseId: string): string {
    return `,"modelVersion":${JSON.stringify(context.model)},"responseId":${JSON.stringify(responseId)}}\n\n`;
  }

  return {
    push(part: StreamPart): string {
      if (closed) return '';
      switch (part.type) {
        case 'start':
          chunkEnd = buildChunkEnd(part.id);
          return '';
        case 'text-delta': {
          const signature = part.signature?.origin === 'generate-content' ? part.signature.value : undefined;
          if (signature !== undefined) return chunk(`{"text":${JSON.stringify(part.text)},"thoughtSignature":${JSON.stringify(signature)}}`);
          return part.text === '' ? '' : chunk(`{"text":${JSON.stringify(part.text)}}`);
        }
        case 'refusal-delta':
          return part.text === '' ? '' : chunk(`{"text":${JSON.stringify(part.text)}}`);
        case 'reasoning-delta':
          // Thought text only for clients that asked (`includeThoughts`), as Gemini itself does.
          return part.text === '' || context.includeReasoning !== true ? '' : chunk(`{"text":${JSON.stringify(part.text)},"thought":true}`);
        case 'reasoning-end':
          // The signature closes the thought; an empty thought part carries it back to the client.
          return part.signature?.origin === 'generate-content'
            ? chunk(`{"text":"","thought":true,"thoughtSignature":${JSON.stringify(part.signature.value)}}`)
            : '';
        case 'tool-call-start':
          calls.set(part.index, { id: part.id, name: part.name, arguments: '' });
          return '';
        case 'tool-call-delta': {
          const call = calls.get(part.index);
          if (call !== undefined) call.arguments += part.argumentsDelta;
          return '';
        }
        case 'tool-call-end':
          return flushCall(part.index, part.signature);
        case 'file':
          return chunk(JSON.stringify({ inlineData: { mimeType: part.mediaType, data: part.data } }));
        case 'finish': {
          // A call the upstream never closed is still a whole call by now.
          let text = '';
          for (const index of calls.keys()) text += flushCall(index, undefined);
          if (closed) return text;
          closed = true;
          return (
            text +
            CHUNK_START +
            `{"text":""}]},"finishReason":"${mapFinishReasonFromCanonical(part.finishReason)}","index":0}],"usageMetadata":` +
            JSON.stringify(convertUsageFromCanonical(part.usage)) +
            chunkEnd
          );
        }
        case 'error':
          return fail(part.error);
      }
    },
  };
}
