import type { FormatId } from './format-id.ts';

/** Where the bytes of an image, audio clip or document come from. */
export type MediaSource =
  | { kind: 'url'; url: string; mediaType?: string }
  | { kind: 'base64'; mediaType: string; data: string }
  /** A vendor file id (`file-…`, Files URI). Not portable across vendors. */
  | { kind: 'file-id'; fileId: string; mediaType?: string };

export interface TextPart {
  type: 'text';
  text: string;
  /** generate-content `thoughtSignature` riding on a text part; only replayed to the same vendor. */
  signature?: VendorSignature;
}

export interface ImagePart {
  type: 'image';
  source: MediaSource;
  detail?: 'auto' | 'low' | 'high' | 'original';
}

export interface AudioPart {
  type: 'audio';
  /** base64 bytes */
  data: string;
  /** e.g. `audio/wav`, `audio/mp3` */
  mediaType: string;
}

export interface FilePart {
  type: 'file';
  source: MediaSource;
  filename?: string;
  title?: string;
}

export interface RefusalPart {
  type: 'refusal';
  text: string;
}

/**
 * Model reasoning. `signature` (messages thinking signature, responses `encrypted_content`,
 * generate-content `thoughtSignature`) is only valid for the vendor that produced it, so it is
 * kept with its origin and dropped by encoders of other formats.
 */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  signature?: VendorSignature;
  /** messages `redacted_thinking.data`: opaque, replayable only to messages upstreams. */
  redactedData?: string;
  /** responses reasoning item id (`rs_…`). */
  id?: string;
}

export interface VendorSignature {
  origin: FormatId;
  value: string;
}

export interface ToolCallPart {
  type: 'tool-call';
  /** The id clients match results to. Kept verbatim; encoders map it when a target rejects it. */
  id: string;
  name: string;
  /** Arguments as JSON text (possibly invalid JSON, as chat-completions clients may send). */
  arguments: string;
  /** generate-content `thoughtSignature` on a functionCall part. */
  signature?: VendorSignature;
}

export interface ToolResultPart {
  type: 'tool-result';
  callId: string;
  /** Tool name when known; generate-content requires it and encoders look it up from history otherwise. */
  name?: string;
  /** A string, or content parts (text, image, file). */
  content: string | Array<TextPart | ImagePart | FilePart>;
  isError?: boolean;
}

export type ContentPart =
  | TextPart
  | ImagePart
  | AudioPart
  | FilePart
  | RefusalPart
  | ReasoningPart
  | ToolCallPart
  | ToolResultPart;

export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

/**
 * One conversation turn. `system` / `developer` messages keep their position; formats with a
 * single system field hoist them (protocols.md §10.1). Tool results live in `tool` messages,
 * one or more `tool-result` parts each.
 */
export interface CanonicalMessage {
  role: Role;
  content: ContentPart[];
  name?: string;
}
