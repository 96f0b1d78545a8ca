import { GatewayError } from '@switchyard/canonical';

/**
 * `encoding_format: "base64"` vectors: float32 little-endian bytes, base64-encoded. openai-node
 * asks for this by default and decodes it without checking the type (protocols.md §9), so the
 * byte layout must be exact. Buffer's LE accessors keep it right on any host byte order.
 */
export function packEmbedding(vector: readonly number[]): string {
  const bytes = Buffer.allocUnsafe(vector.length * 4);
  let offset = 0;
  for (const value of vector) offset = bytes.writeFloatLE(value, offset);
  return bytes.toString('base64');
}

export function unpackEmbedding(base64: string): number[] {
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length % 4 !== 0) {
    throw new GatewayError('upstream_error', 'The upstream sent a base64 embedding that is not a float32 array.');
  }
  return Array.from({ length: bytes.length / 4 }, (_, index) => bytes.readFloatLE(index * 4));
}
