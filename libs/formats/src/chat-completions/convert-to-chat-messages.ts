import { GatewayError } from '@switchyard/canonical';
import type {
  AudioPart,
  CanonicalMessage,
  ContentPart,
  FilePart,
  ImagePart,
  Role,
  ToolResultPart,
} from '@switchyard/canonical';
import { toDataUrl } from '../shared/index.ts';
import type { ChatMessage, ChatTextPart, ChatToolCall, ChatUserPart } from './schema.ts';

type ChatAssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;

/**
 * Canonical turns → chat messages for an upstream (protocols.md §3.1, §10.1–10.4).
 * Reasoning and its signatures have no place in chat history and are dropped silently (every
 * multi-turn conversation from a thinking model has them). Media inside tool results, which
 * chat `tool` messages cannot hold, follow the run of tool messages as one user message:
 * chat requires every call to be answered before any other message.
 */
export function convertToChatMessages(messages: readonly CanonicalMessage[], warnings: string[]): ChatMessage[] {
  const chat: ChatMessage[] = [];
  let movedMedia: ChatUserPart[] = [];
  for (const message of messages) {
    if (message.role !== 'tool' && movedMedia.length > 0) {
      chat.push({ role: 'user', content: movedMedia });
      movedMedia = [];
    }
    switch (message.role) {
      case 'system':
      case 'developer': {
        const texts = message.content.map((part) => {
          if (part.type !== 'text') throw unsupportedPart(part, message.role);
          return textPart(part.text);
        });
        chat.push({ role: message.role, content: textContent(texts), name: message.name });
        break;
      }
      case 'user':
        chat.push(convertUser(message.content, message.name, warnings));
        break;
      case 'assistant':
        chat.push(convertAssistant(message.content, message.name, warnings));
        break;
      case 'tool':
        for (const part of message.content) {
          if (part.type !== 'tool-result') throw unsupportedPart(part, message.role);
          chat.push(convertToolResult(part, movedMedia, warnings));
        }
        break;
    }
  }
  if (movedMedia.length > 0) chat.push({ role: 'user', content: movedMedia });
  return chat;
}

function convertUser(content: readonly ContentPart[], name: string | undefined, warnings: string[]): ChatMessage {
  const parts = content.map((part) => {
    if (part.type === 'text') return textPart(part.text);
    if (part.type === 'image' || part.type === 'audio' || part.type === 'file') return convertMedia(part, warnings);
    throw unsupportedPart(part, 'user');
  });
  const only = parts.length === 1 ? parts[0] : undefined;
  return { role: 'user', content: only?.type === 'text' ? only.text : parts, name };
}

function convertAssistant(content: readonly ContentPart[], name: string | undefined, warnings: string[]): ChatAssistantMessage {
  const texts: ChatTextPart[] = [];
  const toolCalls: ChatToolCall[] = [];
  let refusal = '';
  for (const part of content) {
    switch (part.type) {
      case 'text':
        texts.push(textPart(part.text));
        break;
      case 'refusal':
        refusal += part.text;
        break;
      case 'tool-call':
        // Ids verbatim (chat accepts any); arguments are already JSON text.
        toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
        break;
      case 'reasoning':
        break;
      case 'image':
      case 'audio':
      case 'file':
        warnOnce(warnings, 'Media in assistant history cannot be sent to a chat-completions upstream and was dropped.');
        break;
      case 'tool-result':
        throw unsupportedPart(part, 'assistant');
    }
  }
  const message: ChatAssistantMessage = {
    role: 'assistant',
    // Chat sends null, not "", when the turn is only tool calls or a refusal.
    content: texts.length === 0 && (toolCalls.length > 0 || refusal !== '') ? null : textContent(texts),
    name,
  };
  if (refusal !== '') message.refusal = refusal;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}

function convertToolResult(part: ToolResultPart, movedMedia: ChatUserPart[], warnings: string[]): ChatMessage {
  if (part.isError) warnOnce(warnings, 'chat-completions has no tool error flag; error results were sent as plain results.');
  if (typeof part.content === 'string') return { role: 'tool', tool_call_id: part.callId, content: part.content };
  const texts: ChatTextPart[] = [];
  for (const item of part.content) {
    if (item.type === 'text') {
      texts.push(textPart(item.text));
    } else {
      movedMedia.push(convertMedia(item, warnings));
      warnOnce(
        warnings,
        'Media in tool results was moved to a user message after the tool results (chat-completions tool messages hold text only).',
      );
    }
  }
  return { role: 'tool', tool_call_id: part.callId, content: textContent(texts) };
}

function convertMedia(part: ImagePart | AudioPart | FilePart, warnings: string[]): ChatUserPart {
  switch (part.type) {
    case 'image': {
      if (part.detail !== 'original') return { type: 'image_url', image_url: { url: imageUrl(part), detail: part.detail } };
      warnOnce(warnings, "Image detail 'original' is not supported by chat-completions and was dropped.");
      return { type: 'image_url', image_url: { url: imageUrl(part) } };
    }
    case 'audio':
      return { type: 'input_audio', input_audio: { data: part.data, format: audioFormat(part.mediaType) } };
    case 'file':
      return { type: 'file', file: fileReference(part) };
  }
}

function imageUrl(part: ImagePart): string {
  switch (part.source.kind) {
    case 'url':
      return part.source.url;
    case 'base64':
      return toDataUrl(part.source.mediaType, part.source.data);
    case 'file-id':
      throw new GatewayError('invalid_request', 'chat-completions cannot reference an image by file id.', { param: 'messages' });
  }
}

/** Chat audio input takes `wav` or `mp3` only (protocols.md §3.2). */
function audioFormat(mediaType: string): string {
  switch (mediaType) {
    case 'audio/wav':
    case 'audio/x-wav':
    case 'audio/wave':
      return 'wav';
    case 'audio/mp3':
    case 'audio/mpeg':
      return 'mp3';
    default:
      throw new GatewayError('invalid_request', `chat-completions does not accept ${mediaType} audio (wav and mp3 only).`, {
        param: 'messages',
      });
  }
}

function fileReference(part: FilePart): { file_data?: string; file_id?: string; filename?: string } {
  switch (part.source.kind) {
    case 'base64':
      // OpenAI wants a filename beside inline bytes.
      return { file_data: toDataUrl(part.source.mediaType, part.source.data), filename: part.filename ?? part.title ?? 'file' };
    case 'file-id':
      return { file_id: part.source.fileId, filename: part.filename };
    case 'url':
      throw new GatewayError('invalid_request', 'chat-completions cannot take a file by URL; send its bytes.', { param: 'messages' });
  }
}

function textPart(text: string): ChatTextPart {
  return { type: 'text', text };
}

/** One text part travels as a plain string, as clients usually send it. */
function textContent(texts: ChatTextPart[]): string | ChatTextPart[] {
  if (texts.length === 0) return '';
  return texts.length === 1 && texts[0] !== undefined ? texts[0].text : texts;
}

function unsupportedPart(part: ContentPart, role: Role): GatewayError {
  const message = `A ${part.type} part cannot be sent in a ${role} message to a chat-completions upstream.`;
  return new GatewayError('invalid_request', message, { param: 'messages' });
}

function warnOnce(warnings: string[], warning: string): void {
  if (!warnings.includes(warning)) warnings.push(warning);
}
