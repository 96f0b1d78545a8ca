import { GatewayError } from '@switchyard/canonical';
import type { ContentPart, FilePart, ImagePart, MediaSource, TextPart } from '@switchyard/canonical';
import { parseDataUrl, toDataUrl } from '../shared/index.ts';
import type { MessageContentPart, ToolOutputPart } from './schema.ts';

/** Content parts of input message items and tool outputs, both directions (protocols.md §4.1, §10.2). */

type InputFilePart = Extract<MessageContentPart, { type: 'input_file' }>;
type InputImagePart = Extract<MessageContentPart, { type: 'input_image' }>;

export function contentPartToCanonical(part: MessageContentPart, param: string): ContentPart {
  switch (part.type) {
    case 'output_text':
      return { type: 'text', text: part.text };
    case 'refusal':
      return { type: 'refusal', text: part.refusal };
    default:
      return inputPartToCanonical(part, param);
  }
}

/** The input part types, which are also what a function_call_output may hold. */
export function inputPartToCanonical(part: ToolOutputPart, param: string): TextPart | ImagePart | FilePart {
  switch (part.type) {
    case 'input_text':
      return { type: 'text', text: part.text };
    case 'input_image':
      return imageToCanonical(part, param);
    case 'input_file':
      return fileToCanonical(part, param);
  }
}

function imageToCanonical(part: InputImagePart, param: string): ImagePart {
  const source = mediaSource(part.image_url, part.file_id, param);
  return part.detail == null ? { type: 'image', source } : { type: 'image', source, detail: part.detail };
}

function fileToCanonical(part: InputFilePart, param: string): FilePart {
  const source =
    part.file_data != null
      ? fileDataSource(part.file_data, part.filename)
      : mediaSource(part.file_url, part.file_id, param);
  return part.filename == null ? { type: 'file', source } : { type: 'file', source, filename: part.filename };
}

function mediaSource(url: string | null | undefined, fileId: string | null | undefined, param: string): MediaSource {
  if (url != null) return parseDataUrl(url);
  if (fileId != null) return { kind: 'file-id', fileId };
  throw new GatewayError('invalid_request', 'A media part needs a URL, file data or a file_id.', { param });
}

/** `file_data` is a data URL in the docs, but bare base64 is accepted upstream too. */
function fileDataSource(fileData: string, filename: string | null | undefined): MediaSource {
  if (fileData.startsWith('data:')) return parseDataUrl(fileData);
  const mediaType = filename?.toLowerCase().endsWith('.pdf') ? 'application/pdf' : 'application/octet-stream';
  return { kind: 'base64', mediaType, data: fileData };
}

export type InputContentPart =
  | { type: 'input_text'; text: string }
  | { type: 'input_image'; detail: string; image_url?: string; file_id?: string }
  | { type: 'input_file'; filename?: string; file_data?: string; file_url?: string; file_id?: string };

export function imageFromCanonical(part: ImagePart): InputContentPart {
  const detail = part.detail ?? 'auto';
  const source = part.source;
  if (source.kind === 'file-id') return { type: 'input_image', detail, file_id: source.fileId };
  const imageUrl = source.kind === 'url' ? source.url : toDataUrl(source.mediaType, source.data);
  return { type: 'input_image', detail, image_url: imageUrl };
}

export function fileFromCanonical(part: FilePart): InputContentPart {
  const source = part.source;
  switch (source.kind) {
    case 'url':
      return { type: 'input_file', ...filenameOf(part), file_url: source.url };
    case 'file-id':
      return { type: 'input_file', ...filenameOf(part), file_id: source.fileId };
    case 'base64':
      // The API refuses inline file data without a filename, and reads the type from its extension.
      return {
        type: 'input_file',
        filename: part.filename ?? part.title ?? defaultFilename(source.mediaType),
        file_data: toDataUrl(source.mediaType, source.data),
      };
  }
}

function filenameOf(part: FilePart): { filename?: string } {
  return part.filename === undefined ? {} : { filename: part.filename };
}

function defaultFilename(mediaType: string): string {
  return mediaType === 'application/pdf' ? 'document.pdf' : 'document';
}
