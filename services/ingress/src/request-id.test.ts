import { describe, expect, it } from 'vitest';
import { createRequestIds } from './request-id.ts';

describe('createRequestIds', () => {
  it('should make distinct req_ ids of 32 hex digits across refills', () => {
    const next = createRequestIds();
    const ids = Array.from({ length: 1_000 }, () => next());
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("should not repeat another generator's ids", () => {
    const first = createRequestIds();
    const second = createRequestIds();
    expect(first()).not.toBe(second());
  });
});
