/**
 * Opens many slow streams at once and holds them, as its own process. Prints `PROGRESS {…}`
 * lines every second (streams open right now) and a final JSON line.
 *
 *   node bench/lib/hold-streams.ts '{"url":…,"headers":{…},"body":"…","streams":2000,"rampPerSecond":500,"holdSeconds":60}'
 *
 * A stream counts as an error when it fails, answers non-200, ends without the `[DONE]`
 * terminator, or has not delivered its first event within `firstEventTimeoutMs` (queued
 * somewhere rather than served).
 */
import http from 'node:http';

interface HoldOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  streams: number;
  rampPerSecond: number;
  holdSeconds: number;
  firstEventTimeoutMs: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as HoldOptions;
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const url = new URL(options.url);
const body = Buffer.from(options.body);

let open = 0;
let maxOpen = 0;
let completed = 0;
let stalled = 0;
let failed = 0;
let events = 0;
const startedAt = Date.now();

function one(): Promise<void> {
  return new Promise((resolve) => {
    let first = false;
    let finished = false;
    let tail = '';
    const done = (outcome: 'ok' | 'failed' | 'stalled') => {
      if (finished) return;
      finished = true;
      if (first) open--;
      if (outcome === 'ok') completed++;
      else if (outcome === 'stalled') stalled++;
      else failed++;
      resolve();
    };
    const request = http.request(
      { agent, host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...options.headers, 'content-length': String(body.length) } },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          done('failed');
          return;
        }
        response.setEncoding('utf8');
        response.on('data', (text: string) => {
          events++;
          if (!first) {
            first = true;
            clearTimeout(firstEventGuard);
            open++;
            maxOpen = Math.max(maxOpen, open);
          }
          tail = (tail + text).slice(-64);
        });
        response.on('end', () => done(tail.includes('[DONE]') ? 'ok' : 'failed'));
        response.on('error', () => done('failed'));
      },
    );
    const firstEventGuard = setTimeout(() => {
      done('stalled');
      request.destroy();
    }, options.firstEventTimeoutMs);
    request.on('error', () => {
      clearTimeout(firstEventGuard);
      done('failed');
    });
    // A stream that outlives its expected length by far is cut and counted as failed.
    request.setTimeout((options.holdSeconds + 60) * 1000, () => request.destroy());
    request.end(body);
  });
}

const progress = setInterval(() => {
  process.stdout.write(`PROGRESS ${JSON.stringify({ t: (Date.now() - startedAt) / 1000, open, completed, stalled, failed })}\n`);
}, 1000);

const all: Promise<void>[] = [];
const gapMs = 1000 / options.rampPerSecond;
for (let index = 0; index < options.streams; index++) {
  all.push(one());
  if (index % 10 === 9) await new Promise((resolve) => setTimeout(resolve, gapMs * 10));
}
const rampSeconds = (Date.now() - startedAt) / 1000;
await Promise.all(all);
clearInterval(progress);
process.stdout.write(
  `${JSON.stringify({ streams: options.streams, completed, failed, stalled, maxOpen, events, rampSeconds, seconds: (Date.now() - startedAt) / 1000 })}\n`,
);
