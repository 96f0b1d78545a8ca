import type { ReasoningPart, VendorSignature } from '@switchyard/canonical';

interface WireReasoning {
  id?: string | null | undefined;
  summary?: Array<{ text: string }> | null | undefined;
  content?: Array<{ text: string }> | null | undefined;
  encrypted_content?: string | null | undefined;
}

/**
 * A reasoning item (input or output) → canonical reasoning. Summary parts are joined by blank
 * lines, as the stream decoder joins them; models that only send raw `reasoning_text` content
 * (open-weight models behind a Responses server) fall back to that.
 */
export function reasoningToCanonical(item: WireReasoning): ReasoningPart {
  const summary = item.summary ?? [];
  const source = summary.length > 0 ? summary : (item.content ?? []);
  const part: ReasoningPart = { type: 'reasoning', text: source.map((entry) => entry.text).join('\n\n') };
  if (item.id != null) part.id = item.id;
  if (item.encrypted_content != null) part.signature = encryptedContentSignature(item.encrypted_content);
  return part;
}

/** `encrypted_content` is only valid for a Responses upstream, hence its origin. */
export function encryptedContentSignature(value: string): VendorSignature {
  return { origin: 'responses', value };
}
