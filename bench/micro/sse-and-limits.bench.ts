/** SSE parsing (@switchyard/sse) and rate-limit admission (@switchyard/ratelimit, in memory). */
import { createMemoryLimiter } from '@switchyard/ratelimit';
import * as sse from '@switchyard/sse';
import { afterAll, test } from 'vitest';
import { RUN, upstreamSseText } from './fixtures.ts';

test('SSE parsing (createSseParser), one 50-chunk chat-completions stream per iteration', async ({ bench }) => {
  const { createSseParser, formatSseEvent } = sse;
  const bytes = Buffer.from(upstreamSseText('chat-completions'));
  const events = bytes
    .toString()
    .split('\n\n')
    .filter((event) => event.length > 0);
  const perEvent = events.map((event) => Buffer.from(`${event}\n\n`));
  const kilobytes: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += 1024) kilobytes.push(bytes.subarray(offset, offset + 1024));
  const parse = (chunks: Buffer[]) => {
    let count = 0;
    const parser = createSseParser(() => count++);
    for (const chunk of chunks) parser.push(chunk);
    parser.end();
    if (count < events.length) throw new Error(`parsed ${count} of ${events.length} events`);
  };
  await bench.compare(
    bench(`whole stream in one push (${bytes.length} bytes, ${events.length} events)`, () => parse([bytes])),
    bench(`one push per event (${events.length} pushes), the usual TCP shape`, () => parse(perEvent)),
    bench(`1 KB pushes (${kilobytes.length}), events split across chunks`, () => parse(kilobytes)),
    bench(`formatSseEvent × ${events.length} (same-format re-framing)`, () => {
      let length = 0;
      for (const event of events) length += formatSseEvent(event.slice(6), undefined).length;
      if (length === 0) throw new Error('nothing framed');
    }),
    RUN,
  );
});

const limiter = createMemoryLimiter();
afterAll(() => limiter.close());

test('rate-limit admission, in-memory limiter (admit + release)', async ({ bench }) => {
  const limits = { rpm: 100_000_000, tpm: 1_000_000_000, concurrency: 100_000 };
  let sequence = 0;
  const cycle = async (tenantId: string, tenantLimits: typeof limits | object, keyLimits: typeof limits | object) => {
    const identity = { tenantId, keyId: `${tenantId}-key`, requestId: `req_${sequence++}` };
    const result = await limiter.admit({ ...identity, tenantLimits, keyLimits, estimatedTokens: 40 });
    if (!result.allowed) throw new Error('refused');
    await limiter.release(identity);
  };
  await bench.compare(
    bench('rpm + tpm + concurrency on tenant and key', () => cycle('tenant-a', limits, limits)),
    bench('tenant limits only, key unlimited', () => cycle('tenant-b', limits, {})),
    bench('no limits at all', () => cycle('tenant-c', {}, {})),
    RUN,
  );
});
