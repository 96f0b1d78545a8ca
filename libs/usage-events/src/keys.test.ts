import { describe, expect, it } from 'vitest';
import { aggregateFieldPrefix, aggregateKey, parseAggregateField, requestMarkerKey } from './keys.ts';

/** The part of a key Redis Cluster hashes: between the first `{` and the next `}`, if not empty. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = open === -1 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

describe('usage keys', () => {
  it('should name keys as documented', () => {
    expect(requestMarkerKey('acme', 'req-1')).toBe('sy:{t:acme}:usage:req:req-1');
    expect(aggregateKey('acme', 'day', '2027-03-14')).toBe('sy:{t:acme}:usage:day:2027-03-14');
    expect(aggregateKey('acme', 'month', '2027-03')).toBe('sy:{t:acme}:usage:month:2027-03');
  });

  it('should put the marker and the aggregates of a tenant in one cluster slot', () => {
    const keys = [requestMarkerKey('acme', 'r'), aggregateKey('acme', 'day', '2027-03-14'), aggregateKey('acme', 'month', '2027-03')];
    expect(new Set(keys.map(hashTag))).toEqual(new Set(['t:acme']));
  });

  it('should keep ids with braces and colons from moving the tag or colliding', () => {
    expect(hashTag(requestMarkerKey('a}b{c', 'r'))).toBe('t:a%7Db%7Bc');
    expect(requestMarkerKey('a', 'b:req:c')).not.toBe(requestMarkerKey('a:req:b', 'c'));
    expect(aggregateFieldPrefix('k:m', 'x')).not.toBe(aggregateFieldPrefix('k', 'm:x'));
  });

  it('should parse back the key and model of any field', () => {
    for (const [keyId, model] of [
      ['acme-ci', 'fast-chat'],
      ['key:with:colons', 'org/model:tag'],
      ['%41', 'ünïcode {model}'],
    ] as const) {
      expect(parseAggregateField(`${aggregateFieldPrefix(keyId, model)}input`)).toEqual({ keyId, model, metric: 'input' });
    }
  });

  it('should ignore fields the scheme did not write', () => {
    expect(parseAggregateField('stray')).toBeUndefined();
    expect(parseAggregateField('a:b:c:d')).toBeUndefined();
    expect(parseAggregateField('%E0%A4%A:m:input')).toBeUndefined();
  });
});
