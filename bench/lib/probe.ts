/**
 * Lone-request latency, run as its own process: one keep-alive connection, requests back to
 * back, time to the first body byte (TTFB: for streams, the first event, not the early headers)
 * and to the end. Prints one JSON line.
 *
 *   node bench/lib/probe.ts '{"url":…,"headers":{…},"body":"…","count":500,"warmup":50}'
 */
import http from 'node:http';
import { percentile } from './util.ts';

interface ProbeOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  count: number;
  warmup: number;
  /** Stop early after this long (at least 20 measured requests). */
  maxSeconds?: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as ProbeOptions;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const url = new URL(options.url);
const body = Buffer.from(options.body);

function once(): Promise<{ ttfb: number; total: number; ok: boolean }> {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    let ttfb = -1;
    const request = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: 'POST',
        headers: { ...options.headers, 'content-length': String(body.length) },
      },
      (response) => {
        response.on('data', () => {
          if (ttfb < 0) ttfb = Number(process.hrtime.bigint() - started) / 1e6;
        });
        response.on('end', () => {
          const total = Number(process.hrtime.bigint() - started) / 1e6;
          resolve({ ttfb, total, ok: response.statusCode === 200 });
        });
        response.on('error', () => resolve({ ttfb, total: Number.NaN, ok: false }));
      },
    );
    request.setNoDelay(true);
    request.on('error', () => resolve({ ttfb, total: Number.NaN, ok: false }));
    request.setTimeout(10_000, () => request.destroy());
    request.end(body);
  });
}

const ttfbs: number[] = [];
const totals: number[] = [];
let errors = 0;
const stopAt = performance.now() + (options.maxSeconds ?? 3600) * 1000;
for (let index = 0; index < options.warmup + options.count; index++) {
  if (performance.now() > stopAt && totals.length >= 20) break;
  const result = await once();
  if (!result.ok) errors++;
  if (index >= options.warmup && result.ok) {
    ttfbs.push(result.ttfb);
    totals.push(result.total);
  }
}
agent.destroy();
process.stdout.write(
  `${JSON.stringify({
    count: totals.length,
    errors,
    p50Ms: percentile(totals, 50),
    p99Ms: percentile(totals, 99),
    ttfbP50Ms: percentile(ttfbs, 50),
    ttfbP99Ms: percentile(ttfbs, 99),
  })}\n`,
);
