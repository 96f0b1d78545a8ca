import { describe, expect, it } from 'vitest';
import { keyScopeKeys, tenantScopeKeys } from './keys.ts';

/** The part of a key Redis Cluster hashes: between the first `{` and the next `}`, if not empty. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = open === -1 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

describe('rate-limit keys', () => {
  it('should put every key of a tenant and of its API keys in the same cluster slot', () => {
    const keys = [...Object.values(tenantScopeKeys('acme')), ...Object.values(keyScopeKeys('acme', 'ci'))];
    expect(new Set(keys.map(hashTag))).toEqual(new Set(['t:acme']));
    expect(new Set(keys).size).toBe(8);
  });

  it('should keep ids with braces and colons from moving the tag or colliding', () => {
    expect(hashTag(tenantScopeKeys('a}b{c').requests)).toBe('t:a%7Db%7Bc');
    // Tenant "a" with key "x" against a tenant whose id imitates that layout.
    const lookalike = tenantScopeKeys('a}:k:x').requests;
    expect(lookalike).not.toBe(keyScopeKeys('a', 'x').requests);
    expect(keyScopeKeys('a', 'x:rpm').requests).not.toBe(keyScopeKeys('a', 'x').requests);
  });

  it('should name keys as documented', () => {
    expect(tenantScopeKeys('acme')).toEqual({
      requests: 'sy:{t:acme}:rpm',
      tokens: 'sy:{t:acme}:tpm',
      concurrency: 'sy:{t:acme}:conc',
      budget: 'sy:{t:acme}:budget',
    });
    expect(keyScopeKeys('acme', 'ci').tokens).toBe('sy:{t:acme}:k:ci:tpm');
  });

  it('should hand out the same frozen names for the same ids, and different ones for different ids', () => {
    expect(tenantScopeKeys('acme')).toBe(tenantScopeKeys('acme'));
    expect(keyScopeKeys('acme', 'ci')).toBe(keyScopeKeys('acme', 'ci'));
    expect(keyScopeKeys('acme', 'ci')).not.toBe(keyScopeKeys('acme', 'cd'));
    expect(keyScopeKeys('other', 'ci').requests).toBe('sy:{t:other}:k:ci:rpm');
    expect(Object.isFrozen(tenantScopeKeys('acme'))).toBe(true);
  });
});
