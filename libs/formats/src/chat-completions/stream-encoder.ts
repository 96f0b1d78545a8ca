import type { StreamPart } from '@switchyard/canonical';
import type { ResponseContext, StreamEncoder } from '../wire-format.ts';
import { convertToChatUsage } from './convert-usage.ts';
import { renderStreamError } from './errors.ts';
import { mapCompletionId } from './map-completion-id.ts';
import { mapToChatFinishReason } from './map-finish-reason.ts';

const DONE = 'data: [DONE]\n\n';

/** OpenAI sends `content: ""` in the role chunk (protocols.md §3.5). */
const ROLE_DELTA = '{"role":"assistant","content":""}';

function choice(delta: string, finishReason: string): string {
  return '{"index":0,"delta":' + delta + ',"finish_reason":' + finishReason + '}';
}

/**
 * Canonical stream parts → the exact chunk sequence of protocols.md §3.5: role chunk, content
 * and tool-call chunks, finish chunk with `delta:{}`, the usage chunk (`choices: []`) only when
 * the client asked for it — then every earlier chunk carries `"usage":null` — and `[DONE]`.
 * No `event:` or `id:` lines (§2). Chunks are built by string concatenation around a prefix
 * computed once, so a text delta costs one JSON.stringify of its text.
 */
export function createStreamEncoder(context: ResponseContext): StreamEncoder {
  const suffix = context.includeUsage ? '],"usage":null}\n\n' : ']}\n\n';
  /** `data: {"id":…,"object":…,"created":…,"model":…,"choices":[`, set by `start` */
  let prefix = '';
  let ended = false;

  function open(id: string, created: number): string {
    prefix =
      'data: {"id":' +
      JSON.stringify(mapCompletionId(id, context.requestId)) +
      ',"object":"chat.completion.chunk","created":' +
      created +
      ',"model":' +
      JSON.stringify(context.model) +
      ',"choices":[';
    return prefix + choice(ROLE_DELTA, 'null') + suffix;
  }

  function chunk(delta: string, finishReason = 'null'): string {
    // The contract puts `start` first; a stream that broke it still gets its role chunk.
    const opening = prefix === '' ? open('', Math.floor(Date.now() / 1000)) : '';
    return opening + prefix + choice(delta, finishReason) + suffix;
  }

  function finish(part: Extract<StreamPart, { type: 'finish' }>): string {
    ended = true;
    let text = chunk('{}', '"' + mapToChatFinishReason(part.finishReason) + '"');
    if (context.includeUsage) text += prefix + '],"usage":' + JSON.stringify(convertToChatUsage(part.usage)) + '}\n\n';
    return text + DONE;
  }

  return {
    push(part: StreamPart): string {
      if (ended) return '';
      switch (part.type) {
        case 'start':
          return prefix === '' ? open(part.id, part.created) : '';
        case 'text-delta':
          return part.text === '' ? '' : chunk('{"content":' + JSON.stringify(part.text) + '}');
        case 'refusal-delta':
          return part.text === '' ? '' : chunk('{"refusal":' + JSON.stringify(part.text) + '}');
        case 'reasoning-delta':
          // Non-standard field, only for clients that opted in (protocols.md §3.5).
          return context.includeReasoning && part.text !== ''
            ? chunk('{"reasoning_content":' + JSON.stringify(part.text) + '}')
            : '';
        case 'tool-call-start':
          return chunk(
            '{"tool_calls":[{"index":' +
              part.index +
              ',"id":' +
              JSON.stringify(part.id) +
              ',"type":"function","function":{"name":' +
              JSON.stringify(part.name) +
              ',"arguments":""}}]}',
          );
        case 'tool-call-delta':
          if (part.argumentsDelta === '') return '';
          return chunk(
            '{"tool_calls":[{"index":' + part.index + ',"function":{"arguments":' + JSON.stringify(part.argumentsDelta) + '}}]}',
          );
        case 'finish':
          return finish(part);
        case 'error':
          ended = true;
          return renderStreamError(part.error);
        // Chat has no per-call or reasoning block ends and no generated media.
        case 'reasoning-end':
        case 'tool-call-end':
        case 'file':
          return '';
      }
    },
  };
}
