import {
  GatewayError,
  type ContentPart,
  type FilePart,
  type ImagePart,
  type MediaSource,
  type VendorSignature,
} from '@switchyard/canonical';
import { createId, parseDataUrl, parseToolArguments, stringifyToolArguments } from '../shared/index.ts';
import type { Part } from './schema.ts';

/** A Part as sent to Gemini: one data field plus optional `thought` / `thoughtSignature`. */
export type GeminiPart = Record<string, unknown>;

/** How to read `inlineData`: by MIME type (requests), or always as a file (model output: generated media). */
type MediaReading = 'by-type' | 'file';

/**
 * One Part → a canonical part (protocols.md §6.2). `functionResponse` is not handled here: it
 * needs the call history (convert-contents.ts). Undefined means the part carries nothing we know.
 */
export function convertPartToCanonical(part: Part, media: MediaReading): ContentPart | undefined {
  const signature = readSignature(part);
  const call = part.functionCall;
  if (call != null) {
    return {
      type: 'tool-call',
      // Ids are optional on the wire; never derive one from the name (parallel calls collide, §12.9).
      id: call.id ?? createId('call_'),
      name: call.name,
      arguments: stringifyToolArguments(call.args),
      ...(signature && { signature }),
    };
  }
  if (part.inlineData != null) {
    const { mimeType, data } = part.inlineData;
    if (media === 'file') return { type: 'file', source: { kind: 'base64', mediaType: mimeType, data } };
    if (mimeType.startsWith('audio/')) return { type: 'audio', mediaType: mimeType, data };
    return mediaToCanonical({ kind: 'base64', mediaType: mimeType, data });
  }
  if (part.fileData != null) return mediaToCanonical(fileDataSource(part.fileData.fileUri, part.fileData.mimeType));
  // Code execution is a hosted tool; other vendors can only read its code and output as text.
  if (part.executableCode != null) {
    return { type: 'text', text: `\`\`\`${(part.executableCode.language ?? '').toLowerCase()}\n${part.executableCode.code}\n\`\`\`` };
  }
  if (part.codeExecutionResult != null) return { type: 'text', text: part.codeExecutionResult.output ?? '' };
  // A signature may ride alone on an empty text part (the last part of a thinking turn).
  const text = part.text ?? (signature === undefined ? undefined : '');
  if (text === undefined) return undefined;
  if (part.thought === true) return { type: 'reasoning', text, ...(signature && { signature }) };
  return { type: 'text', text, ...(signature && { signature }) };
}

function readSignature(part: Part): VendorSignature | undefined {
  return part.thoughtSignature == null ? undefined : { origin: 'generate-content', value: part.thoughtSignature };
}

/**
 * Files API references (`https://generativelanguage.googleapis.com/v1beta/files/…`, `files/…`)
 * only mean something to Gemini, so they are file ids; any other URI is a plain URL.
 */
function isGeminiFileReference(uri: string): boolean {
  return uri.startsWith('files/') || uri.includes('generativelanguage.googleapis.com/');
}

export function fileDataSource(fileUri: string, mimeType: string | null | undefined): MediaSource {
  if (isGeminiFileReference(fileUri)) {
    const mediaType = mimeType ?? undefined;
    return { kind: 'file-id', fileId: fileUri, ...(mediaType && { mediaType }) };
  }
  // `mimeType` is optional on the wire; without it a `…/cat.png` URL would pass for a generic
  // file (a PDF document toward messages, a 400 toward chat) instead of the image it is.
  const mediaType = mimeType ?? guessMediaType(fileUri);
  return { kind: 'url', url: fileUri, ...(mediaType && { mediaType }) };
}

export function mediaToCanonical(source: MediaSource): ImagePart | FilePart {
  return source.mediaType?.startsWith('image/') ? { type: 'image', source } : { type: 'file', source };
}

/**
 * A canonical part → a Gemini Part, or undefined when it has nothing to send (empty text: Gemini
 * rejects empty parts, §12.4/§12.7). Signatures ride along only when Gemini produced them.
 * `param` names the part in errors (`messages[2].content[0]`).
 */
export function convertPartToGemini(part: ContentPart, param: string): GeminiPart | undefined {
  switch (part.type) {
    case 'text':
    case 'reasoning': {
      const signature = part.signature?.origin === 'generate-content' ? part.signature.value : undefined;
      if (part.text === '' && signature === undefined) return undefined;
      const converted: GeminiPart = { text: part.text };
      if (part.type === 'reasoning') converted.thought = true;
      if (signature !== undefined) converted.thoughtSignature = signature;
      return converted;
    }
    case 'refusal':
      return part.text === '' ? undefined : { text: part.text };
    case 'image':
    case 'file':
      return convertMediaToGemini(part.source, param);
    case 'audio':
      return { inlineData: { mimeType: part.mediaType, data: part.data } };
    case 'tool-call': {
      const converted: GeminiPart = {
        functionCall: { id: part.id, name: part.name, args: parseToolArguments(part.arguments, `${param}.arguments`) },
      };
      if (part.signature?.origin === 'generate-content') converted.thoughtSignature = part.signature.value;
      return converted;
    }
    case 'tool-result':
      throw new GatewayError('invalid_request', 'A tool result must be in a tool message.', { param });
  }
}

/**
 * convertPartToGemini for an answer going back to a client: a part that cannot be expressed
 * (tool arguments that are not a JSON object, a URL of unknown media type) is the upstream's
 * fault, so it is a 502, not the client's 400.
 */
export function convertAnswerPartToGemini(part: ContentPart, param: string): GeminiPart | undefined {
  try {
    return convertPartToGemini(part, param);
  } catch (error) {
    if (!GatewayError.isInstance(error)) throw error;
    throw new GatewayError('upstream_error', `The upstream answer cannot be expressed for this client: ${error.message}`, { cause: error });
  }
}

/**
 * Media → `inlineData` (bytes) or `fileData` (a reference). Switchyard does not fetch URLs: an
 * http(s) URL is passed as `fileData`, which needs a MIME type, so an unknown one is a 400.
 * Other vendors' file ids cannot be resolved by Gemini (§10.2) and are a 400 too.
 */
export function convertMediaToGemini(source: MediaSource, param: string): GeminiPart {
  switch (source.kind) {
    case 'base64':
      return { inlineData: { mimeType: source.mediaType, data: source.data } };
    case 'url': {
      if (source.url.startsWith('data:')) return convertMediaToGemini(parseDataUrl(source.url), param);
      const mimeType = source.mediaType ?? guessMediaType(source.url);
      if (mimeType === undefined) {
        throw new GatewayError('invalid_request', `Cannot tell the media type of ${source.url}; send the bytes inline.`, { param });
      }
      return { fileData: { mimeType, fileUri: source.url } };
    }
    case 'file-id': {
      if (!isGeminiFileReference(source.fileId)) {
        throw new GatewayError('invalid_request', `File id ${source.fileId} belongs to another vendor; send the bytes inline.`, { param });
      }
      return { fileData: { fileUri: source.fileId, ...(source.mediaType && { mimeType: source.mediaType }) } };
    }
  }
}

const MEDIA_TYPE_FOR_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  pdf: 'application/pdf',
  wav: 'audio/wav',
  mp3: 'audio/mp3',
  mp4: 'video/mp4',
};

function guessMediaType(url: string): string | undefined {
  const extension = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1];
  return extension === undefined ? undefined : MEDIA_TYPE_FOR_EXTENSION[extension.toLowerCase()];
}
