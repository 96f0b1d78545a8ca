import { describe, expect, it } from 'vitest';
import { mapToCanonicalFinishReason, mapToChatFinishReason } from './map-finish-reason.ts';

describe('mapToCanonicalFinishReason', () => {
  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool_calls', 'tool-calls'],
    ['function_call', 'tool-calls'],
    ['content_filter', 'content-filter'],
    ['eos', 'other'],
  ])('should map %s to %s and keep the raw value', (raw, unified) => {
    expect(mapToCanonicalFinishReason(raw)).toEqual({ unified, raw });
  });

  it('should not invent a reason the upstream did not give', () => {
    expect(mapToCanonicalFinishReason(null)).toEqual({ unified: 'other' });
  });
});

describe('mapToChatFinishReason', () => {
  it.each([
    [{ unified: 'stop', raw: 'end_turn' }, 'stop'],
    [{ unified: 'length', raw: 'MAX_TOKENS' }, 'length'],
    [{ unified: 'tool-calls', raw: 'tool_use' }, 'tool_calls'],
    [{ unified: 'tool-calls', raw: 'function_call' }, 'function_call'],
    [{ unified: 'content-filter', raw: 'SAFETY' }, 'content_filter'],
    [{ unified: 'other', raw: 'pause_turn' }, 'stop'],
    [{ unified: 'error' }, 'stop'],
    [{ unified: 'stop', raw: 'length' }, 'stop'],
  ] as const)('should map %j to %s', (reason, expected) => {
    expect(mapToChatFinishReason(reason)).toBe(expected);
  });
});
