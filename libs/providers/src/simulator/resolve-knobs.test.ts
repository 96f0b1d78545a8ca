import { describe, expect, it } from 'vitest';
import { readHeaderKnobs, readInlineDirectives, resolveKnobs } from './resolve-knobs.ts';
import { DEFAULT_KNOBS } from './simulator-knobs.ts';

describe('readHeaderKnobs', () => {
  it('should read x-sim- headers in any case and ignore unknown knobs and bad numbers', () => {
    expect(readHeaderKnobs(['X-Sim-Fail-Status', '500', 'x-sim-no-usage', 'true', 'x-sim-bogus', '1', 'x-sim-words', 'many'])).toEqual({
      fail_status: 500,
      no_usage: true,
    });
  });

  it('should return nothing when no knob header is present', () => {
    expect(readHeaderKnobs(['content-type', 'application/json'])).toBeUndefined();
  });
});

describe('readInlineDirectives', () => {
  it('should read and strip every directive', () => {
    expect(readInlineDirectives('Hi [[sim:words=3, fail-status=429]] there [[sim:malformed]]')).toEqual({
      overrides: { words: 3, fail_status: 429, malformed: true },
      text: 'Hi there',
    });
  });

  it('should leave text without directives untouched', () => {
    expect(readInlineDirectives('plain  text')).toEqual({ overrides: undefined, text: 'plain  text' });
  });
});

describe('resolveKnobs', () => {
  it('should let inline directives win over headers over defaults', () => {
    const knobs = resolveKnobs({ ...DEFAULT_KNOBS, words: 1, chunks: 1 }, { words: 2, chunks: 2 }, { words: 3 });
    expect([knobs.words, knobs.chunks]).toEqual([3, 2]);
  });

  it('should reuse the defaults object when nothing overrides them', () => {
    expect(resolveKnobs(DEFAULT_KNOBS, undefined, undefined)).toBe(DEFAULT_KNOBS);
  });
});
