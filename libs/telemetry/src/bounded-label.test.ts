import { describe, expect, it } from 'vitest';
import { BoundedLabel } from './bounded-label.ts';

describe('BoundedLabel', () => {
  it('should keep the first values and send the overflow to other', () => {
    const label = new BoundedLabel(2);
    expect([label.value('a'), label.value('b'), label.value('c'), label.value('a')]).toEqual(['a', 'b', 'other', 'a']);
  });
});
