import { describe, expect, it } from 'vitest';
import { convertToCanonicalResponseFormat, convertToChatResponseFormat } from './convert-response-format.ts';

describe('convertToChatResponseFormat', () => {
  it('should name a schema that came without a name, as chat requires one', () => {
    expect(convertToChatResponseFormat({ type: 'json-schema', schema: { type: 'object' } })).toEqual({
      type: 'json_schema',
      json_schema: { name: 'response', schema: { type: 'object' } },
    });
  });

  it('should map text and JSON mode', () => {
    expect([convertToChatResponseFormat({ type: 'text' }), convertToChatResponseFormat({ type: 'json' })]).toEqual([
      { type: 'text' },
      { type: 'json_object' },
    ]);
  });
});

describe('convertToCanonicalResponseFormat', () => {
  it('should default a missing schema to an empty one', () => {
    expect(convertToCanonicalResponseFormat({ type: 'json_schema', json_schema: { name: 'x' } })).toEqual({
      type: 'json-schema',
      name: 'x',
      schema: {},
    });
  });
});
