import type { CanonicalUsage, StreamPart } from '@switchyard/canonical';
import { formatSseEvent } from '@switchyard/sse';
import { mapToolCallId } from '../shared/index.ts';
import type { ResponseContext, StreamEncoder } from '../wire-format.ts';
import { convertInputUsageFromCanonical } from './convert-usage.ts';
import { renderStreamError } from './errors.ts';
import { mapStopReasonFromCanonical } from './map-stop-reason.ts';
import { messageId } from './response.ts';

type Part<T extends StreamPart['type']> = Extract<StreamPart, { type: T }>;

/** Every event carries its `event:` line: @anthropic-ai/sdk drops data without one (protocols.md §2). */
function sse(type: string, data: string): string {
  return formatSseEvent(data, type);
}

function inputUsageJson(usage: Partial<CanonicalUsage>): string {
  const input = convertInputUsageFromCanonical(usage);
  return (
    `"input_tokens":${input.input_tokens},` +
    `"cache_creation_input_tokens":${input.cache_creation_input_tokens},` +
    `"cache_read_input_tokens":${input.cache_read_input_tokens}`
  );
}

/**
 * canonical parts → messages SSE (protocols.md §5.5, §11.2). Blocks get contiguous indices from
 * 0 and only one is open at a time: whatever starts closes the open block. Event JSON is
 * written by hand — only strings pass through JSON.stringify — so a text delta costs one
 * string build, not an object graph.
 *
 * Thinking needs its signature to be replayable, and the signature arrives with
 * `reasoning-end`; so reasoning deltas are held until then and become a thinking block only
 * when the signature is a messages one. Reasoning from other vendors is dropped (§11.2 step 6).
 */
export function createStreamEncoder(context: ResponseContext): StreamEncoder {
  let started = false;
  let ended = false;
  let nextIndex = 0;
  let open: 'text' | 'tool' | undefined;
  /** messages block index of each tool call, by canonical ordinal. */
  const toolBlocks = new Map<number, number>();
  let reasoning: string[] = [];

  function messageStart(part: Part<'start'> | undefined): string {
    started = true;
    const id = JSON.stringify(messageId(part?.id ?? '', context.requestId));
    const model = JSON.stringify(context.model);
    return sse(
      'message_start',
      `{"type":"message_start","message":{"id":${id},"type":"message","role":"assistant","model":${model},` +
        `"content":[],"stop_reason":null,"stop_sequence":null,` +
        `"usage":{${inputUsageJson(part?.usage ?? {})},"output_tokens":0}}}`,
    );
  }

  function stopBlock(index: number): string {
    return sse('content_block_stop', `{"type":"content_block_stop","index":${index}}`);
  }

  function closeBlock(): string {
    if (open === undefined) return '';
    open = undefined;
    return stopBlock(nextIndex - 1);
  }

  function startBlock(contentBlock: string): string {
    const start = `{"type":"content_block_start","index":${nextIndex},"content_block":${contentBlock}}`;
    const out = closeBlock() + sse('content_block_start', start);
    nextIndex++;
    return out;
  }

  function delta(index: number, deltaJson: string): string {
    return sse('content_block_delta', `{"type":"content_block_delta","index":${index},"delta":${deltaJson}}`);
  }

  function text(value: string): string {
    if (value === '') return '';
    let out = '';
    if (open !== 'text') {
      out = startBlock('{"type":"text","text":""}');
      open = 'text';
    }
    return out + delta(nextIndex - 1, `{"type":"text_delta","text":${JSON.stringify(value)}}`);
  }

  function reasoningEnd(part: Part<'reasoning-end'>): string {
    const deltas = reasoning;
    reasoning = [];
    if (part.redactedData !== undefined) {
      return startBlock(`{"type":"redacted_thinking","data":${JSON.stringify(part.redactedData)}}`) + stopBlock(nextIndex - 1);
    }
    if (part.signature?.origin !== 'messages') return '';
    let out = startBlock('{"type":"thinking","thinking":"","signature":""}');
    const index = nextIndex - 1;
    for (const thinking of deltas) out += delta(index, `{"type":"thinking_delta","thinking":${JSON.stringify(thinking)}}`);
    out += delta(index, `{"type":"signature_delta","signature":${JSON.stringify(part.signature.value)}}`);
    // Complete when written, so the block closes at once instead of staying open.
    return out + stopBlock(index);
  }

  function toolCallStart(part: Part<'tool-call-start'>): string {
    const out = startBlock(
      `{"type":"tool_use","id":${JSON.stringify(mapToolCallId(part.id))},"name":${JSON.stringify(part.name)},"input":{}}`,
    );
    open = 'tool';
    toolBlocks.set(part.index, nextIndex - 1);
    return out;
  }

  function toolCallDelta(part: Part<'tool-call-delta'>): string {
    const index = toolBlocks.get(part.index);
    if (index === undefined || part.argumentsDelta === '') return '';
    // A fragment for a call whose block was closed (interleaved upstream calls) still goes to
    // its own index: the SDK accumulates by index, and dropping it would corrupt the arguments.
    return delta(index, `{"type":"input_json_delta","partial_json":${JSON.stringify(part.argumentsDelta)}}`);
  }

  function toolCallEnd(part: Part<'tool-call-end'>): string {
    return open === 'tool' && toolBlocks.get(part.index) === nextIndex - 1 ? closeBlock() : '';
  }

  function finish(part: Part<'finish'>): string {
    ended = true;
    const stopReason = mapStopReasonFromCanonical(part.finishReason);
    const { stopSequence } = part.finishReason;
    const stopSequenceJson = stopSequence === undefined ? 'null' : JSON.stringify(stopSequence);
    const messageDelta = `{"stop_reason":"${stopReason}","stop_sequence":${stopSequenceJson}}`;
    return (
      closeBlock() +
      sse(
        'message_delta',
        `{"type":"message_delta","delta":${messageDelta},` +
          `"usage":{"output_tokens":${part.usage.outputTokens},${inputUsageJson(part.usage)}}}`,
      ) +
      sse('message_stop', '{"type":"message_stop"}')
    );
  }

  function encode(part: StreamPart): string {
    switch (part.type) {
      case 'start':
        return '';
      case 'text-delta':
      case 'refusal-delta':
        return text(part.text);
      case 'reasoning-delta':
        if (part.text !== '') reasoning.push(part.text);
        return '';
      case 'reasoning-end':
        return reasoningEnd(part);
      case 'tool-call-start':
        return toolCallStart(part);
      case 'tool-call-delta':
        return toolCallDelta(part);
      case 'tool-call-end':
        return toolCallEnd(part);
      case 'file':
        // messages has no media output.
        return '';
      case 'finish':
        return finish(part);
      case 'error':
        ended = true;
        return renderStreamError(part.error);
    }
  }

  return {
    push(part: StreamPart): string {
      if (ended) return '';
      // Reasoning that ends without reaching reasoning-end (unsigned, other vendor) is dropped.
      if (reasoning.length > 0 && part.type !== 'reasoning-delta' && part.type !== 'reasoning-end') reasoning = [];
      // message_start must lead even if a decoder skipped `start`; an error alone needs none.
      if (started || part.type === 'error') return encode(part);
      const head = messageStart(part.type === 'start' ? part : undefined);
      return head + encode(part);
    },
  };
}
