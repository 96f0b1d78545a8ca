import { hashText } from './hash-text.ts';

/** mulberry32: tiny seeded generator, so a text always maps to the same vector. */
function createGenerator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), state | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** A deterministic unit vector of `dimensions` values for `text`. */
export function embedText(text: string, dimensions: number): number[] {
  const next = createGenerator(hashText(text));
  const values = Array.from({ length: Math.max(1, dimensions) }, () => next() * 2 - 1);
  const norm = Math.sqrt(values.reduce((sum, value) => sum + value * value, 0)) || 1;
  return values.map((value) => value / norm);
}

/** What openai-node decodes by default: float32 little-endian bytes, base64 (protocols.md §9). */
export function encodeFloat32Base64(values: readonly number[]): string {
  const view = new DataView(new ArrayBuffer(values.length * 4));
  values.forEach((value, index) => view.setFloat32(index * 4, value, true));
  return Buffer.from(view.buffer).toString('base64');
}
