import { describe, expect, it } from 'vitest';
import { decodeAdmittedAt } from './route-headers.ts';

describe('route headers', () => {
  it('should read back a whole number of ms and nothing else', () => {
    expect(decodeAdmittedAt('1786708800123')).toBe(1_786_708_800_123);
    expect(decodeAdmittedAt('0')).toBe(0);
    for (const malformed of [undefined, '', '-5', '1.5', '1e12', 'NaN', ' 12', '1234567890123456']) expect(decodeAdmittedAt(malformed)).toBeUndefined();
  });
});
