import { describe, expect, it } from 'vitest';
import { detectModelListFormat, extractApiKey, parseGenerateContentTarget } from './route.ts';

describe('parseGenerateContentTarget', () => {
  it('should split the model from the method at the last colon', () => {
    expect(parseGenerateContentTarget('gemini-2.5-flash:streamGenerateContent')).toEqual({
      format: 'generate-content',
      operation: 'generate',
      model: 'gemini-2.5-flash',
      method: 'streamGenerateContent',
      stream: true,
    });
    expect(parseGenerateContentTarget('m:batchEmbedContents')?.operation).toBe('embeddings');
  });

  it('should refuse unknown methods and missing models', () => {
    expect(parseGenerateContentTarget('m:explode')).toBeUndefined();
    expect(parseGenerateContentTarget(':generateContent')).toBeUndefined();
  });
});

describe('detectModelListFormat', () => {
  it('should follow the version header before the credential header', () => {
    expect(detectModelListFormat({ authorization: 'Bearer x', 'anthropic-version': '2023-06-01' }, false)).toBe('messages');
    expect(detectModelListFormat({ 'x-goog-api-key': 'k' }, false)).toBe('generate-content');
    expect(detectModelListFormat({}, true)).toBe('generate-content');
    expect(detectModelListFormat({ authorization: 'Bearer x' }, false)).toBe('chat-completions');
  });
});

describe('extractApiKey', () => {
  it('should read each format from its own places', () => {
    expect(extractApiKey('chat-completions', { authorization: 'Bearer sk-1' }, undefined)).toBe('sk-1');
    expect(extractApiKey('messages', { 'x-api-key': 'sk-2' }, undefined)).toBe('sk-2');
    expect(extractApiKey('messages', { authorization: 'bearer sk-3' }, undefined)).toBe('sk-3');
    expect(extractApiKey('generate-content', {}, 'sk-4')).toBe('sk-4');
    expect(extractApiKey('generate-content', { 'x-vendorb-api-key': 'sk-5' }, undefined)).toBe('sk-5');
    expect(extractApiKey('chat-completions', { 'x-api-key': 'sk-6' }, undefined)).toBeUndefined();
  });
});
