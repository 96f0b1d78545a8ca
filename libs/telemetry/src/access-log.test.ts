import { pino, type DestinationStream } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAccessLog, type AccessEntry } from './access-log.ts';
import { createLogger } from './logger.ts';

function capture(): DestinationStream & { lines: string[] } {
  const lines: string[] = [];
  return { lines, write: (line: string) => void lines.push(line) };
}

const ENTRIES: AccessEntry[] = [
  { requestId: 'req-1', tenant: 'acme', format: 'chat-completions', model: 'gpt-x', upstream: 'up-chat', status: 200, stream: true, durationMs: 12 },
  // Refused before routing: no model or upstream, which pino leaves off the line.
  { requestId: 'req-2', tenant: 'acme', format: 'messages', model: undefined, upstream: undefined, status: 429, stream: false, durationMs: 0 },
  // Names a client chose: quotes, a newline, a backslash and non-ASCII must come out escaped as pino escapes them.
  { requestId: 'r"\n\\é\u2028', tenant: 't', format: 'generate-content', model: 'm"}{', upstream: 'u', status: 502, stream: false, durationMs: 30_001 },
];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(1_796_000_000_123);
});
afterEach(() => vi.useRealTimers());

describe('createAccessLog', () => {
  it("writes the bytes pino writes for logger.info(entry, 'request')", () => {
    const ours = capture();
    const theirs = capture();
    const write = createAccessLog(createLogger({ name: 'all', destination: ours }));
    const logger = createLogger({ name: 'all', destination: theirs });
    for (const entry of ENTRIES) {
      write(entry);
      logger.info(entry, 'request');
    }
    expect(ours.lines).toEqual(theirs.lines);
    expect(JSON.parse(ours.lines[2] ?? '')).toMatchObject({ requestId: 'r"\n\\é\u2028', model: 'm"}{' });
  });

  it("carries the logger's mixin fields (the active trace) where pino puts them", () => {
    const fields = { trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331', absent: undefined };
    const ours = capture();
    const theirs = capture();
    // pino merges a line's fields into what the mixin returns, so each call returns a new object.
    const mixin = () => ({ ...fields });
    const write = createAccessLog(pino({ base: { target: 'router' }, mixin }, ours));
    pino({ base: { target: 'router' }, mixin }, theirs).info(ENTRIES[0], 'request');
    write(ENTRIES[0] as AccessEntry);
    expect(ours.lines).toEqual(theirs.lines);
    expect(ours.lines[0]).toContain('"trace_id":"0af7651916cd43dd8448eb211c80319c"');
  });

  it('writes nothing above info, and follows a level changed at run time', () => {
    const ours = capture();
    const logger = createLogger({ level: 'warn', destination: ours });
    const write = createAccessLog(logger);
    write(ENTRIES[0] as AccessEntry);
    expect(ours.lines).toEqual([]);
    logger.level = 'info';
    write(ENTRIES[0] as AccessEntry);
    expect(ours.lines).toHaveLength(1);
  });
});
