import { describe, expect, it } from 'vitest';
import { mapStopReasonFromCanonical, mapStopReasonToCanonical } from './map-stop-reason.ts';

describe('mapStopReasonToCanonical', () => {
  it('should map every messages stop reason as protocols.md §10.5 does', () => {
    const mapped = ['end_turn', 'stop_sequence', 'pause_turn', 'max_tokens', 'model_context_window_exceeded', 'tool_use', 'refusal', 'new_reason'].map(
      (reason) => mapStopReasonToCanonical(reason, null).unified,
    );
    expect(mapped).toEqual(['stop', 'stop', 'stop', 'length', 'length', 'tool-calls', 'content-filter', 'other']);
  });

  it('should keep the raw value and the matched stop sequence', () => {
    expect(mapStopReasonToCanonical('stop_sequence', 'END')).toEqual({ unified: 'stop', raw: 'stop_sequence', stopSequence: 'END' });
    expect(mapStopReasonToCanonical(null, null)).toEqual({ unified: 'other' });
  });
});

describe('mapStopReasonFromCanonical', () => {
  it('should map unified reasons from other formats', () => {
    expect(mapStopReasonFromCanonical({ unified: 'stop', raw: 'stop' })).toBe('end_turn');
    expect(mapStopReasonFromCanonical({ unified: 'stop', stopSequence: 'END' })).toBe('stop_sequence');
    expect(mapStopReasonFromCanonical({ unified: 'length', raw: 'MAX_TOKENS' })).toBe('max_tokens');
    expect(mapStopReasonFromCanonical({ unified: 'tool-calls', raw: 'tool_calls' })).toBe('tool_use');
    expect(mapStopReasonFromCanonical({ unified: 'content-filter', raw: 'SAFETY' })).toBe('refusal');
    expect(mapStopReasonFromCanonical({ unified: 'other' })).toBe('end_turn');
  });

  it('should keep a messages upstream reason the unified value cannot say', () => {
    expect(mapStopReasonFromCanonical({ unified: 'stop', raw: 'pause_turn' })).toBe('pause_turn');
    expect(mapStopReasonFromCanonical({ unified: 'length', raw: 'model_context_window_exceeded' })).toBe('model_context_window_exceeded');
  });
});
