import {
  GatewayError,
  type ContentPart,
  type FilePart,
  type ImagePart,
  type MediaSource,
  type ReasoningPart,
  type TextPart,
  type ToolResultPart,
} from '@switchyard/canonical';
import { mapToolCallId, parseToolArguments, stringifyToolArguments } from '../shared/index.ts';
import type { ContentBlock, DocumentBlock, ImageBlock, ToolResultContentBlock } from './schema.ts';

const IMAGE_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

type UrlSource = { type: 'url'; url: string };
type MessagesTextBlock = { type: 'text'; text: string };
type MessagesImageBlock = { type: 'image'; source: { type: 'base64'; media_type: ImageMediaType; data: string } | UrlSource };
type MessagesDocumentBlock = {
  type: 'document';
  source:
    | { type: 'base64'; media_type: 'application/pdf'; data: string }
    | { type: 'text'; media_type: 'text/plain'; data: string }
    | UrlSource;
  title?: string;
};
/** What a tool_result may hold among the blocks Switchyard writes. */
type MessagesMediaBlock = MessagesTextBlock | MessagesImageBlock | MessagesDocumentBlock;

/** The blocks the encoder writes (protocols.md §5.2); a subset of what the API accepts. */
export type MessagesContentBlock =
  | MessagesMediaBlock
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content?: string | MessagesMediaBlock[]; is_error?: boolean }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

// ── messages → canonical ────────────────────────────────────────────────────────────────

function convertImageSource(source: ImageBlock['source']): MediaSource {
  switch (source.type) {
    case 'base64':
      return { kind: 'base64', mediaType: source.media_type, data: source.data };
    case 'url':
      return { kind: 'url', url: source.url };
    case 'file':
      return { kind: 'file-id', fileId: source.file_id };
  }
}

/**
 * Plain-text documents become base64 `text/plain` so other formats can carry them as files
 * (chat `file_data`, generate-content `inlineData`); the encoder below turns them back.
 */
function textDocumentSource(text: string): MediaSource {
  return { kind: 'base64', mediaType: 'text/plain', data: Buffer.from(text, 'utf8').toString('base64') };
}

function convertDocumentSource(source: DocumentBlock['source']): MediaSource {
  switch (source.type) {
    case 'text':
      return textDocumentSource(source.data);
    case 'content':
      return textDocumentSource(
        typeof source.content === 'string' ? source.content : source.content.map((block) => block.text).join('\n'),
      );
    default:
      return convertImageSource(source);
  }
}

function convertDocumentBlock(block: DocumentBlock): FilePart {
  const part: FilePart = { type: 'file', source: convertDocumentSource(block.source) };
  if (typeof block.title === 'string') part.title = block.title;
  return part;
}

type MediaBlock = Extract<ContentBlock, { type: 'text' | 'image' | 'document' }>;

function convertMediaBlock(block: MediaBlock): TextPart | ImagePart | FilePart {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return { type: 'image', source: convertImageSource(block.source) };
    case 'document':
      return convertDocumentBlock(block);
  }
}

/** Blocks the canonical model has no place for (search results, tool references, future kinds) are dropped. */
export function convertToolResultContentToCanonical(
  content: string | ToolResultContentBlock[] | undefined,
): ToolResultPart['content'] {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  const parts: Array<TextPart | ImagePart | FilePart> = [];
  for (const block of content) {
    if (block.type !== 'unsupported') parts.push(convertMediaBlock(block));
  }
  return parts;
}

/**
 * One user/assistant block as a canonical part. `tool_result` is handled by the message
 * converter (it becomes its own `tool` message); `cache_control` has no canonical meaning and
 * is dropped here — a same-format upstream gets the original body on the fast path.
 */
export function convertContentBlockToPart(block: Exclude<ContentBlock, { type: 'tool_result' }>): ContentPart | undefined {
  switch (block.type) {
    case 'text':
    case 'image':
    case 'document':
      return convertMediaBlock(block);
    case 'tool_use':
      return { type: 'tool-call', id: block.id, name: block.name, arguments: stringifyToolArguments(block.input) };
    case 'thinking':
      return { type: 'reasoning', text: block.thinking, signature: { origin: 'messages', value: block.signature } };
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redactedData: block.data };
    case 'unsupported':
      return undefined;
  }
}

// ── canonical → messages ────────────────────────────────────────────────────────────────

/** Provider file ids are not portable across vendors (protocols.md §10.2). */
function rejectFileId(param: string): never {
  throw new GatewayError('invalid_request', 'File ids cannot be sent to this model; send the content inline or as a URL.', {
    param,
  });
}

function isImageMediaType(mediaType: string): mediaType is ImageMediaType {
  return (IMAGE_MEDIA_TYPES as readonly string[]).includes(mediaType);
}

/** messages takes four image types; the upstream would refuse others with a less helpful 400. */
function encodeImage(source: MediaSource, param: string): MessagesImageBlock {
  if (source.kind === 'url') return { type: 'image', source: { type: 'url', url: source.url } };
  if (source.kind === 'file-id') return rejectFileId(param);
  // `image/jpg` is a common mislabel of JPEG.
  const mediaType = source.mediaType === 'image/jpg' ? 'image/jpeg' : source.mediaType;
  if (!isImageMediaType(mediaType)) {
    const message = `This model accepts JPEG, PNG, GIF or WebP images, not ${source.mediaType}.`;
    throw new GatewayError('invalid_request', message, { param });
  }
  return { type: 'image', source: { type: 'base64', media_type: mediaType, data: source.data } };
}

function documentSource(source: MediaSource, param: string): MessagesDocumentBlock['source'] {
  if (source.kind === 'url') return { type: 'url', url: source.url };
  if (source.kind === 'file-id') return rejectFileId(param);
  if (source.mediaType === 'application/pdf') return { type: 'base64', media_type: 'application/pdf', data: source.data };
  if (source.mediaType.startsWith('text/')) {
    return { type: 'text', media_type: 'text/plain', data: Buffer.from(source.data, 'base64').toString('utf8') };
  }
  const message = `This model accepts PDF or plain-text documents, not ${source.mediaType}.`;
  throw new GatewayError('invalid_request', message, { param });
}

/** messages documents are PDFs (bytes or URL) or plain text; images sent as files become image blocks. */
function encodeFile(part: FilePart, param: string): MessagesImageBlock | MessagesDocumentBlock {
  if (part.source.kind === 'base64' && part.source.mediaType.startsWith('image/')) return encodeImage(part.source, param);
  const block: MessagesDocumentBlock = { type: 'document', source: documentSource(part.source, param) };
  const title = part.title ?? part.filename;
  if (title !== undefined) block.title = title;
  return block;
}

/** messages rejects empty and whitespace-only text blocks (protocols.md §12.4). */
function encodeText(text: string): MessagesTextBlock | undefined {
  return text.trim() === '' ? undefined : { type: 'text', text };
}

function encodeMedia(part: TextPart | ImagePart | FilePart, param: string): MessagesMediaBlock | undefined {
  switch (part.type) {
    case 'text':
      return encodeText(part.text);
    case 'image':
      return encodeImage(part.source, param);
    case 'file':
      return encodeFile(part, param);
  }
}

function encodeToolResult(part: ToolResultPart, param: string): MessagesContentBlock {
  const block: Extract<MessagesContentBlock, { type: 'tool_result' }> = {
    type: 'tool_result',
    tool_use_id: mapToolCallId(part.callId),
  };
  if (typeof part.content === 'string') {
    if (part.content !== '') block.content = part.content;
  } else {
    const blocks: MessagesMediaBlock[] = [];
    for (const [index, media] of part.content.entries()) {
      const encoded = encodeMedia(media, `${param}.content[${index}]`);
      if (encoded !== undefined) blocks.push(encoded);
    }
    if (blocks.length > 0) block.content = blocks;
  }
  if (part.isError === true) block.is_error = true;
  return block;
}

/**
 * Thinking replays only with its own signature; reasoning from other vendors (or unsigned)
 * would be rejected by messages, so it is dropped (protocols.md §10.4).
 */
export function encodeReasoningPart(part: ReasoningPart): MessagesContentBlock | undefined {
  if (part.redactedData !== undefined) return { type: 'redacted_thinking', data: part.redactedData };
  if (part.signature?.origin === 'messages') return { type: 'thinking', thinking: part.text, signature: part.signature.value };
  return undefined;
}

/**
 * One canonical part as a messages block, or undefined when the part has no messages form
 * that can be sent (blank text, reasoning from another vendor — its signature would be
 * rejected). Audio has no messages form at all, so it is a 400 rather than a silent drop.
 * Tool ids are mapped onto the messages alphabet on calls and results alike (§10.4, §12.6).
 */
export function encodeContentPart(part: ContentPart, param: string): MessagesContentBlock | undefined {
  switch (part.type) {
    case 'text':
    case 'image':
    case 'file':
      return encodeMedia(part, param);
    case 'refusal':
      return encodeText(part.text);
    case 'audio':
      throw new GatewayError('invalid_request', 'This model does not accept audio input.', { param });
    case 'reasoning':
      return encodeReasoningPart(part);
    case 'tool-call':
      return {
        type: 'tool_use',
        id: mapToolCallId(part.id),
        name: part.name,
        input: parseToolArguments(part.arguments, param),
      };
    case 'tool-result':
      return encodeToolResult(part, param);
  }
}
