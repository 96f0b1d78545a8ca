import type * as NodeHttp from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { handleRequest } from './handle-request.ts';
import { DEFAULT_KNOBS } from './simulator-knobs.ts';
import type { SimulatorKnobs } from './simulator-knobs.ts';
import { createSimulatorState } from './simulator-state.ts';
import type { SimulatorStats } from './simulator-state.ts';

// Required, not imported, as in the router client's hop-connection.ts: an ESM import of
// node:http loads Node's bundled undici (docs/performance.md, "Memory at rest").
const { createServer } = createRequire(import.meta.url)('node:http') as typeof NodeHttp;

export interface SimulatorOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** Knobs for every request; headers and inline directives override them per request. */
  defaults?: Partial<SimulatorKnobs>;
}

export interface RunningSimulator {
  /** The origin, e.g. http://127.0.0.1:40123 (append /v1 for the two OpenAI formats). */
  url: string;
  port: number;
  /** Stops listening and ends every open connection, streams included. */
  close(): Promise<void>;
  stats(): SimulatorStats;
}

// Longer than any client pool's idle timeout, so the client, not the server, closes idle
// sockets and a benchmark never races a server-side close.
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** Start the simulated vendor upstream (all four formats) on its own HTTP server. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const state = createSimulatorState({ ...DEFAULT_KNOBS, ...options.defaults });
  const server = createServer(
    // Nagle off: every stream event leaves as soon as it is written.
    { noDelay: true, keepAlive: true, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS },
    (request, response) => handleRequest(state, request, response),
  );
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  server.on('connection', (socket) => {
    state.stats.openConnections += 1;
    socket.once('close', () => {
      state.stats.openConnections -= 1;
      state.stats.closedConnections += 1;
    });
  });

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    stats: () => ({ ...state.stats }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}
