import { describe, expect, it } from 'vitest';
import { sampleArguments, sampleFromSchema } from './sample-from-schema.ts';

describe('sampleFromSchema', () => {
  it('should fill every property by type, recursively', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        count: { type: 'integer' },
        ratio: { type: 'number' },
        ok: { type: 'boolean' },
        unit: { type: 'string', enum: ['c', 'f'] },
        tags: { type: 'array', items: { type: 'string' } },
        nested: { type: 'object', properties: { deep: { type: ['null', 'number'] } } },
      },
    };
    expect(sampleFromSchema(schema)).toEqual({
      name: 'sample',
      count: 1,
      ratio: 1,
      ok: true,
      unit: 'c',
      tags: ['sample'],
      nested: { deep: 1 },
    });
  });

  it('should read Gemini upper-case types, const and anyOf', () => {
    expect(sampleFromSchema({ type: 'OBJECT', properties: { n: { type: 'NUMBER' } } })).toEqual({ n: 1 });
    expect(sampleFromSchema({ const: 'fixed' })).toBe('fixed');
    expect(sampleFromSchema({ anyOf: [{ type: 'null' }, { type: 'boolean' }] })).toBe(true);
  });

  it('should stop on self-referencing depth instead of looping', () => {
    const schema: Record<string, unknown> = { type: 'object', properties: {} };
    (schema.properties as Record<string, unknown>).self = schema;
    expect(JSON.stringify(sampleFromSchema(schema)).length).toBeLessThan(500);
  });

  it('should give tool arguments as an object even without a schema', () => {
    expect(sampleArguments(undefined)).toEqual({});
    expect(sampleArguments({ type: 'string' })).toEqual({});
  });
});
