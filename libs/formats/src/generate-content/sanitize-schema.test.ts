import { describe, expect, it } from 'vitest';
import { sanitizeSchema } from './sanitize-schema.ts';

describe('sanitizeSchema', () => {
  it('should upper-case types and drop keywords Gemini rejects', () => {
    expect(
      sanitizeSchema({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        additionalProperties: false,
        propertyNames: { pattern: '^[a-z]+$' },
        properties: {
          city: { type: 'string', description: 'City name', format: 'uri', minLength: 1 },
          when: { type: 'string', format: 'date-time' },
          days: { type: 'integer', format: 'int32', minimum: 1, exclusiveMaximum: 10 },
          tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
        },
        required: ['city', 'missing'],
      }),
    ).toEqual({
      type: 'OBJECT',
      properties: {
        city: { type: 'STRING', description: 'City name', minLength: 1 },
        when: { type: 'STRING', format: 'date-time' },
        days: { type: 'INTEGER', format: 'int32', minimum: 1 },
        tags: { type: 'ARRAY', items: { type: 'STRING' }, maxItems: 3 },
      },
      required: ['city'],
    });
  });

  it('should turn const into a one-value enum and drop non-string enums', () => {
    expect(sanitizeSchema({ const: 'celsius' })).toEqual({ type: 'STRING', enum: ['celsius'] });
    expect(sanitizeSchema({ type: 'string', enum: ['a', 'b'] })).toEqual({ type: 'STRING', enum: ['a', 'b'] });
    expect(sanitizeSchema({ type: 'integer', enum: [1, 2] })).toEqual({ type: 'INTEGER' });
    expect(sanitizeSchema({ type: 'number', const: 3 })).toEqual({ type: 'NUMBER' });
  });

  it('should express null in type lists and anyOf as nullable', () => {
    expect(sanitizeSchema({ type: ['string', 'null'] })).toEqual({ type: 'STRING', nullable: true });
    expect(sanitizeSchema({ type: ['string', 'integer'] })).toEqual({ anyOf: [{ type: 'STRING' }, { type: 'INTEGER' }] });
    expect(sanitizeSchema({ anyOf: [{ type: 'null' }, { type: 'array', items: { type: 'number' } }], description: 'd' })).toEqual({
      description: 'd',
      type: 'ARRAY',
      items: { type: 'NUMBER' },
      nullable: true,
    });
    expect(sanitizeSchema({ oneOf: [{ type: 'string' }, { type: 'boolean' }, { type: 'null' }] })).toEqual({
      anyOf: [{ type: 'STRING' }, { type: 'BOOLEAN' }],
      nullable: true,
    });
  });

  it('should inline $ref definitions and merge allOf', () => {
    expect(
      sanitizeSchema({
        type: 'object',
        properties: {
          home: { $ref: '#/$defs/Address', description: 'Where they live' },
          work: { $ref: '#/definitions/Address' },
          named: { allOf: [{ $ref: '#/$defs/Address' }, { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }] },
        },
        $defs: { Address: { type: 'object', properties: { street: { type: 'string' } }, required: ['street'] } },
        definitions: { Address: { type: 'object', properties: { zip: { type: 'string' } } } },
      }),
    ).toEqual({
      type: 'OBJECT',
      properties: {
        home: { description: 'Where they live', type: 'OBJECT', properties: { street: { type: 'STRING' } }, required: ['street'] },
        work: { type: 'OBJECT', properties: { street: { type: 'STRING' } }, required: ['street'] },
        named: {
          type: 'OBJECT',
          properties: { street: { type: 'STRING' }, name: { type: 'STRING' } },
          required: ['street', 'name'],
        },
      },
    });
  });

  it('should cut recursive references at their first repeat', () => {
    expect(
      sanitizeSchema({
        $ref: '#/$defs/Node',
        $defs: { Node: { type: 'object', properties: { value: { type: 'number' }, next: { $ref: '#/$defs/Node', description: 'Next node' } } } },
      }),
    ).toEqual({
      type: 'OBJECT',
      properties: { value: { type: 'NUMBER' }, next: { description: 'Next node', type: 'OBJECT' } },
    });
  });
});
