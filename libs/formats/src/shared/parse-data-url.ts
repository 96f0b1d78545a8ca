import type { MediaSource } from '@switchyard/canonical';

/**
 * Turns an image/file URL as chat and responses clients send it into a media source:
 * `data:<mime>;base64,<bytes>` becomes inline bytes, anything else stays a URL.
 * protocols.md §10.2: split on the first comma, the mime type sits between `data:` and `;base64`.
 */
export function parseDataUrl(url: string): MediaSource {
  if (!url.startsWith('data:')) return { kind: 'url', url };
  const comma = url.indexOf(',');
  const header = comma === -1 ? url.slice(5) : url.slice(5, comma);
  const semicolon = header.indexOf(';');
  const mediaType = (semicolon === -1 ? header : header.slice(0, semicolon)) || 'application/octet-stream';
  return { kind: 'base64', mediaType, data: comma === -1 ? '' : url.slice(comma + 1) };
}

/** The reverse of parseDataUrl for formats that carry inline bytes as data URLs. */
export function toDataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}
