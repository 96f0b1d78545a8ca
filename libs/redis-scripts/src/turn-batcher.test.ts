import { describe, expect, it } from 'vitest';
import { createTurnBatcher } from './turn-batcher.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function recording(answer: (items: readonly string[]) => Promise<readonly string[]> = async (items) => items.map((item) => item.toUpperCase()), maxBatch?: number) {
  const batches: string[][] = [];
  const call = createTurnBatcher<string, string>((items) => {
    batches.push([...items]);
    return answer(items);
  }, maxBatch);
  return { batches, call };
}

describe('createTurnBatcher', () => {
  it("should send a turn's calls of each group as one batch, in order, and answer each its own result", async () => {
    const { batches, call } = recording();
    const results = await Promise.all([call('acme', 'a'), call('globex', 'x'), call('acme', 'b'), call('acme', 'c'), call('globex', 'y')]);
    expect(results).toEqual(['A', 'X', 'B', 'C', 'Y']);
    expect(batches).toEqual([
      ['a', 'b', 'c'],
      ['x', 'y'],
    ]);
  });

  it('should split a turn of more calls than a batch holds into batches in order', async () => {
    const { batches, call } = recording(undefined, 2);
    expect(await Promise.all(['a', 'b', 'c', 'd', 'e'].map((item) => call('acme', item)))).toEqual(['A', 'B', 'C', 'D', 'E']);
    expect(batches).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('should send calls of different turns in different batches', async () => {
    const { batches, call } = recording();
    const first = call('acme', 'a');
    await nextTurn();
    const second = call('acme', 'b');
    expect(await Promise.all([first, second])).toEqual(['A', 'B']);
    expect(batches).toEqual([['a'], ['b']]);
  });

  it('should not hold a batch behind an earlier one that never answers', async () => {
    let first = true;
    const { batches, call } = recording(async (items) => {
      if (first) {
        first = false;
        return new Promise<never>(() => {});
      }
      return items;
    });
    void call('acme', 'hangs');
    await nextTurn();
    expect(await call('acme', 'later')).toBe('later');
    expect(batches).toEqual([['hangs'], ['later']]);
  });

  it('should fail every call of a batch that fails, throws, or answers the wrong number of results', async () => {
    for (const answer of [
      () => Promise.reject(new Error('connection reset')),
      () => {
        throw new Error('connection reset');
      },
      async () => ['only one'],
    ]) {
      const { call } = recording(answer);
      const outcomes = await Promise.allSettled([call('acme', 'a'), call('acme', 'b')]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    }
  });
});
