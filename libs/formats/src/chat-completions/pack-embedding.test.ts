import { describe, expect, it } from 'vitest';
import { packEmbedding, unpackEmbedding } from './pack-embedding.ts';

describe('packEmbedding', () => {
  it('should pack float32 little-endian bytes that a Float32Array over the decoded bytes reads back', () => {
    const vector = [0.0123, -0.0456, 1, -2.5, 3.4e-8];
    const bytes = Buffer.from(packEmbedding(vector), 'base64');
    expect(bytes.length).toBe(vector.length * 4);
    const floats = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    expect(Array.from(floats)).toEqual(vector.map(Math.fround));
  });

  it('should write the known bytes of 1.0', () => {
    expect(packEmbedding([1])).toBe(Buffer.from([0x00, 0x00, 0x80, 0x3f]).toString('base64'));
  });
});

describe('unpackEmbedding', () => {
  it('should read back what was packed', () => {
    const vector = [0.5, -0.25, 123.125];
    expect(unpackEmbedding(packEmbedding(vector))).toEqual(vector);
  });

  it('should refuse bytes that are not whole float32 values', () => {
    expect(() => unpackEmbedding(Buffer.from([1, 2, 3]).toString('base64'))).toThrow('not a float32 array');
  });
});
