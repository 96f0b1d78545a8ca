import { describe, expect, it } from 'vitest';
import { mapCompletionId } from './map-completion-id.ts';

describe('mapCompletionId', () => {
  it('should keep a chat id and prefix any other', () => {
    expect(mapCompletionId('chatcmpl-7Qx', 'req1')).toBe('chatcmpl-7Qx');
    expect(mapCompletionId('msg_01XY', 'req1')).toBe('chatcmpl-msg_01XY');
  });

  it('should fall back to the request id when the upstream gave none', () => {
    expect(mapCompletionId('', 'req1')).toBe('chatcmpl-req1');
  });
});
