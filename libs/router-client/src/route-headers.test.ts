import { describe, expect, it } from 'vitest';
import { ADMITTED_AT_HEADER, decodeAdmittedAt, ESTIMATED_TOKENS_HEADER, identityHeaders } from './route-headers.ts';

describe('route headers', () => {
  const identity = { tenantId: 'acme', keyId: 'ci', requestId: 'r1' };

  it('should carry the admission time only when there is one', () => {
    expect(identityHeaders(identity, 12)).not.toHaveProperty(ADMITTED_AT_HEADER);
    expect(identityHeaders(identity, 12, 1_786_708_800_123)).toMatchObject({
      [ESTIMATED_TOKENS_HEADER]: '12',
      [ADMITTED_AT_HEADER]: '1786708800123',
    });
  });

  it('should read back a whole number of ms and nothing else', () => {
    expect(decodeAdmittedAt(identityHeaders(identity, 1, 1_786_708_800_123)[ADMITTED_AT_HEADER])).toBe(1_786_708_800_123);
    expect(decodeAdmittedAt('0')).toBe(0);
    for (const malformed of [undefined, '', '-5', '1.5', '1e12', 'NaN', ' 12', '1234567890123456']) expect(decodeAdmittedAt(malformed)).toBeUndefined();
  });
});
