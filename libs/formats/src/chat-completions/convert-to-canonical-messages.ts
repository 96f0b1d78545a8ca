import { GatewayError } from '@switchyard/canonical';
import type {
  CanonicalMessage,
  ContentPart,
  FilePart,
  ImagePart,
  MediaSource,
  TextPart,
  ToolResultPart,
} from '@switchyard/canonical';
import { parseDataUrl } from '../shared/index.ts';
import type { ChatMessage, ChatTextPart, ChatUserPart } from './schema.ts';

type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;

/**
 * Chat messages → canonical turns, positions kept (protocols.md §3.1, §10.1). Tool results
 * carry the tool name looked up from the call earlier in the conversation, which
 * generate-content needs. The deprecated `function_call` / `function` pair has no ids: each
 * legacy call gets one derived from its position, and the next `function` message answers it.
 */
export function convertToCanonicalMessages(messages: readonly ChatMessage[]): CanonicalMessage[] {
  const toolNames = new Map<string, string>();
  let legacyCallId: string | undefined;
  return messages.map((message, index): CanonicalMessage => {
    switch (message.role) {
      case 'system':
      case 'developer':
        return withName({ role: message.role, content: convertTextContent(message.content) }, message.name);
      case 'user':
        return withName({ role: 'user', content: convertUserContent(message.content, index) }, message.name);
      case 'assistant': {
        const content = convertAssistantContent(message, index);
        for (const part of content) if (part.type === 'tool-call') toolNames.set(part.id, part.name);
        if (message.function_call != null) legacyCallId = legacyFunctionCallId(index);
        return withName({ role: 'assistant', content }, message.name);
      }
      case 'tool': {
        const content = typeof message.content === 'string' ? message.content : message.content.map(toTextPart);
        return { role: 'tool', content: [toolResult(message.tool_call_id, toolNames.get(message.tool_call_id), content)] };
      }
      case 'function':
        return {
          role: 'tool',
          content: [toolResult(legacyCallId ?? legacyFunctionCallId(index), message.name, message.content ?? '')],
        };
    }
  });
}

function withName(message: CanonicalMessage, name: string | null | undefined): CanonicalMessage {
  if (name != null) message.name = name;
  return message;
}

function toolResult(callId: string, name: string | undefined, content: ToolResultPart['content']): ToolResultPart {
  const part: ToolResultPart = { type: 'tool-result', callId, content };
  if (name !== undefined) part.name = name;
  return part;
}

function legacyFunctionCallId(index: number): string {
  return `call_function_${index}`;
}

function toTextPart(part: ChatTextPart): TextPart {
  return { type: 'text', text: part.text };
}

function convertTextContent(content: string | ChatTextPart[]): ContentPart[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content.map(toTextPart);
}

function convertUserContent(content: string | ChatUserPart[], messageIndex: number): ContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part, partIndex): ContentPart => {
    switch (part.type) {
      case 'text':
        return toTextPart(part);
      case 'image_url': {
        const image: ImagePart = { type: 'image', source: parseDataUrl(part.image_url.url) };
        if (part.image_url.detail != null) image.detail = part.image_url.detail;
        return image;
      }
      case 'input_audio':
        return { type: 'audio', data: part.input_audio.data, mediaType: `audio/${part.input_audio.format}` };
      case 'file': {
        const file: FilePart = { type: 'file', source: fileSource(part.file, `messages[${messageIndex}].content[${partIndex}].file`) };
        if (part.file.filename != null) file.filename = part.file.filename;
        return file;
      }
    }
  });
}

function fileSource(file: { file_data?: string | null; file_id?: string | null }, param: string): MediaSource {
  if (file.file_data != null) {
    const source = parseDataUrl(file.file_data);
    // Bare base64 (no data: prefix) is accepted by OpenAI; chat file inputs are PDFs.
    return source.kind === 'url' ? { kind: 'base64', mediaType: 'application/pdf', data: file.file_data } : source;
  }
  if (file.file_id != null) return { kind: 'file-id', fileId: file.file_id };
  throw new GatewayError('invalid_request', 'A file content part needs file_data or file_id.', { param });
}

function convertAssistantContent(message: AssistantMessage, index: number): ContentPart[] {
  const parts: ContentPart[] = [];
  if (message.reasoning_content) parts.push({ type: 'reasoning', text: message.reasoning_content });
  const content = message.content;
  // Empty text next to tool calls means "no text"; as a part it becomes an invalid empty
  // text block for messages upstreams (protocols.md §12.4).
  if (typeof content === 'string') {
    if (content !== '') parts.push({ type: 'text', text: content });
  } else if (content != null) {
    for (const part of content) {
      if (part.type === 'refusal') parts.push({ type: 'refusal', text: part.refusal });
      else if (part.text !== '') parts.push(toTextPart(part));
    }
  }
  if (message.refusal) parts.push({ type: 'refusal', text: message.refusal });
  for (const call of message.tool_calls ?? []) {
    parts.push(
      call.type === 'function'
        ? { type: 'tool-call', id: call.id, name: call.function.name, arguments: call.function.arguments }
        : { type: 'tool-call', id: call.id, name: call.custom.name, arguments: call.custom.input },
    );
  }
  if (message.function_call != null) {
    const { name, arguments: args } = message.function_call;
    parts.push({ type: 'tool-call', id: legacyFunctionCallId(index), name, arguments: args });
  }
  return parts;
}
