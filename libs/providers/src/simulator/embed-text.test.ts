import { describe, expect, it } from 'vitest';
import { embedText, encodeFloat32Base64 } from './embed-text.ts';

describe('embedText', () => {
  it('should give the same unit vector for the same text', () => {
    const vector = embedText('hello', 32);
    expect(vector).toHaveLength(32);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 10);
    expect(embedText('hello', 32)).toEqual(vector);
    expect(embedText('hello!', 32)).not.toEqual(vector);
  });
});

describe('encodeFloat32Base64', () => {
  it('should pack little-endian float32 values', () => {
    const bytes = Buffer.from(encodeFloat32Base64([1, -0.5]), 'base64');
    expect([bytes.readFloatLE(0), bytes.readFloatLE(4)]).toEqual([1, -0.5]);
  });
});
