import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mutatedLike } from './test-support.ts';

describe('mutatedLike', () => {
  it('should go on changing a body whose first change deleted its only key', () => {
    const bodies = fc.sample(mutatedLike(fc.constant({ only: 1 }), fc.constant(0)), { numRuns: 300, seed: 1 });
    expect(bodies).toContainEqual({});
    expect(bodies).toContainEqual({ x_added: 0 });
  });
});
