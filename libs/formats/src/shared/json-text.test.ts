import { describe, expect, it } from 'vitest';
import { leadingTypeOtherThan, leadingTypeStartingWith, looksLikeObject, nonNullKeyPattern } from './json-text.ts';

describe('nonNullKeyPattern', () => {
  const usage = nonNullKeyPattern(['usage', 'finish_reason']);

  it('should find a key with a value other than null, compact or with blanks', () => {
    expect(usage.test('{"usage":{"prompt_tokens":1}}')).toBe(true);
    expect(usage.test('{"usage" :\n {"prompt_tokens":1}}')).toBe(true);
    expect(usage.test('{"choices":[{"finish_reason":"stop"}]}')).toBe(true);
    expect(usage.test('{"usage":0}')).toBe(true);
  });

  it('should pass over keys whose value is null', () => {
    expect(usage.test('{"usage":null,"choices":[{"finish_reason":null}]}')).toBe(false);
    expect(usage.test('{"usage": null, "finish_reason" :\tnull}')).toBe(false);
  });

  it('should not be fooled by content quoting the key, whose quotes JSON escapes', () => {
    const content = JSON.stringify({ content: 'say "usage":{"prompt_tokens":1} and "finish_reason": "stop"', usage: null });
    expect(usage.test(content)).toBe(false);
  });

  it('should find a non-null occurrence after a null one (any depth)', () => {
    expect(usage.test('{"x":{"usage":null},"usage":{"prompt_tokens":1}}')).toBe(true);
  });
});

describe('leading type patterns', () => {
  const nonTerminal = leadingTypeOtherThan(['response.completed', 'error']);

  it('should match events written with a type other than the listed ones', () => {
    expect(nonTerminal.test('{"type":"response.output_text.delta","delta":"x"}')).toBe(true);
    expect(nonTerminal.test('{"type":"response.completed_extra"}')).toBe(true);
    expect(nonTerminal.test('{"type":"errors"}')).toBe(true);
  });

  it('should not match the listed types, types with escapes, or a type that is not the first key', () => {
    expect(nonTerminal.test('{"type":"response.completed","response":{}}')).toBe(false);
    expect(nonTerminal.test('{"type":"error"}')).toBe(false);
    expect(nonTerminal.test('{"type":"response.complet\\u0065d"}')).toBe(false);
    expect(nonTerminal.test('{"sequence_number":1,"type":"response.output_text.delta"}')).toBe(false);
    expect(nonTerminal.test('{"type": "response.output_text.delta"}')).toBe(false);
    expect(nonTerminal.test('{"type":"response.output_text.delta')).toBe(false);
  });

  it('should match a type prefix literally', () => {
    const content = leadingTypeStartingWith('content_block_');
    expect(content.test('{"type":"content_block_delta","index":0}')).toBe(true);
    expect(content.test('{"type":"message_delta"}')).toBe(false);
    expect(leadingTypeStartingWith('a.b').test('{"type":"axb"}')).toBe(false);
  });
});

describe('looksLikeObject', () => {
  it('should want braces at both ends', () => {
    expect(looksLikeObject('{"a":1}')).toBe(true);
    expect(looksLikeObject('{"a":1')).toBe(false);
    expect(looksLikeObject('[DONE]')).toBe(false);
    expect(looksLikeObject('')).toBe(false);
  });
});
