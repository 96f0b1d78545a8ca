import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KeepAlives, type QuietStream } from './keep-alives.ts';

function stream(): QuietStream & { pings: number } {
  return {
    sent: false,
    pings: 0,
    keepAlive() {
      this.pings++;
    },
  };
}

describe('KeepAlives', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('should write a keep-alive to a stream that sent nothing for a whole period, never sooner, and one a period while it stays quiet', () => {
    const keepAlives = new KeepAlives(100);
    const quiet = stream();
    keepAlives.add(quiet);
    // Added between two ticks: the first tick only starts its quiet period.
    vi.advanceTimersByTime(100);
    expect(quiet.pings).toBe(0);
    vi.advanceTimersByTime(100);
    expect(quiet.pings).toBe(1);
    vi.advanceTimersByTime(300);
    expect(quiet.pings).toBe(4);
    keepAlives.close();
  });

  it('should leave a stream that keeps sending alone, and stop with its removal or close()', () => {
    const keepAlives = new KeepAlives(100);
    const busy = stream();
    const other = stream();
    keepAlives.add(busy);
    const forget = keepAlives.add(other);
    for (let tick = 0; tick < 5; tick++) {
      busy.sent = true;
      vi.advanceTimersByTime(100);
    }
    expect(busy.pings).toBe(0);
    expect(other.pings).toBe(4);
    forget();
    vi.advanceTimersByTime(500);
    expect(other.pings).toBe(4);
    expect(busy.pings).toBe(5);
    keepAlives.close();
    vi.advanceTimersByTime(500);
    expect(busy.pings).toBe(5);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('should share one timer among all its streams', () => {
    const keepAlives = new KeepAlives(100);
    for (let index = 0; index < 50; index++) keepAlives.add(stream());
    expect(vi.getTimerCount()).toBe(1);
    keepAlives.close();
  });
});
