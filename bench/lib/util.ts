import { createServer } from 'node:net';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Ports handed out by this process. A port is only bound once the process it was picked for is
 * up, and another may be picked before that (split's ingress, while its router starts; the
 * instances of a target): none is handed out twice.
 */
const handedOut = new Set<number>();

/** A port that was free a moment ago (listen on 0, read, close) and not handed out before. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await unusedPort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function median(values: number[]): number {
  const finite = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (finite.length === 0) return Number.NaN;
  const middle = Math.floor(finite.length / 2);
  return finite.length % 2 === 1 ? (finite[middle] as number) : ((finite[middle - 1] as number) + (finite[middle] as number)) / 2;
}

/** The median RSS of the soak samples taken from `from` to `to` seconds (end excluded). */
export function medianRssMb(samples: { t: number; rssMb: number }[], from: number, to: number): number {
  return median(samples.filter((sample) => sample.t >= from && sample.t < to).map((sample) => sample.rssMb));
}

/** Nearest-rank percentile of unsorted values (0 < p ≤ 100). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

export function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}
