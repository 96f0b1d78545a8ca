import { describe, expect, it } from 'vitest';
import { mapToolCallId } from './map-tool-call-id.ts';

describe('mapToolCallId', () => {
  it('should keep ids that every target accepts', () => {
    expect(mapToolCallId('call_9f2')).toBe('call_9f2');
  });

  it('should map unsafe ids deterministically to the safe alphabet', () => {
    const mapped = mapToolCallId('functions.get_weather:0');
    expect(mapped).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(mapToolCallId('functions.get_weather:0')).toBe(mapped);
    expect(mapToolCallId('functions.get_weather:1')).not.toBe(mapped);
  });

  it('should cap long ids at the limit', () => {
    expect(mapToolCallId('x'.repeat(100)).length).toBeLessThanOrEqual(64);
  });
});
