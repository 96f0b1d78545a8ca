import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface Backend {
  host: string;
  port: number;
}

export interface BalancerStats {
  /** Client connections accepted. */
  accepted: number;
  /** Client connections paired with a backend, per backend index. */
  connectedTo: number[];
  /** Open pairs right now, per backend index. */
  open: number[];
  /** Connection attempts a backend refused (or failed), per backend index. */
  refused: number[];
  /** Client connections closed because every backend refused. */
  rejected: number;
}

export interface TcpBalancer {
  url: string;
  port: number;
  stats(): BalancerStats;
  /**
   * Stops moving bytes, both ways, on every connection, and holds new connections unpaired: a
   * network stall (nothing refused, nothing answered) for fault injection. Bounded by the caller.
   */
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

/**
 * A small layer-4 round-robin balancer, as a cloud TCP load balancer or kube-proxy would do:
 * each client connection is paired with the next backend that accepts a connection (backends
 * that refuse are skipped, up to one full round), and bytes flow both ways untouched until
 * either side closes. Balancing is per connection, not per request.
 */
export async function startTcpBalancer(backends: Backend[], options: { connectTimeoutMs?: number } = {}): Promise<TcpBalancer> {
  const connectTimeoutMs = options.connectTimeoutMs ?? 2_000;
  const stats: BalancerStats = {
    accepted: 0,
    connectedTo: backends.map(() => 0),
    open: backends.map(() => 0),
    refused: backends.map(() => 0),
    rejected: 0,
  };
  const sockets = new Set<Socket>();
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  let next = 0;
  let paused = false;
  let resumed: Promise<void> = Promise.resolve();
  let wake: () => void = () => {};

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  /** Connects to backend `index`; resolves the socket, or undefined when it refuses or times out. */
  const tryBackend = (index: number): Promise<Socket | undefined> =>
    new Promise((resolve) => {
      const backend = backends[index] as Backend;
      const upstream = connect({ host: backend.host, port: backend.port, noDelay: true });
      const timer = setTimeout(() => fail(), connectTimeoutMs);
      const fail = () => {
        clearTimeout(timer);
        upstream.destroy();
        stats.refused[index] = (stats.refused[index] ?? 0) + 1;
        resolve(undefined);
      };
      upstream.once('error', fail);
      upstream.once('connect', () => {
        clearTimeout(timer);
        upstream.off('error', fail);
        resolve(upstream);
      });
    });

  const connectPair = ({ client, upstream }: { client: Socket; upstream: Socket }) => {
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
    upstream.resume();
  };

  const server: Server = createServer({ noDelay: true, pauseOnConnect: true }, (client) => {
    stats.accepted++;
    track(client);
    // Until paired, the client's bytes wait in its (paused) socket.
    client.on('error', () => client.destroy());
    void (async () => {
      await resumed;
      for (let tried = 0; tried < backends.length; tried++) {
        if (client.destroyed) return;
        const index = next++ % backends.length;
        const upstream = await tryBackend(index);
        if (upstream === undefined) continue;
        if (client.destroyed) {
          upstream.destroy();
          return;
        }
        track(upstream);
        stats.connectedTo[index] = (stats.connectedTo[index] ?? 0) + 1;
        stats.open[index] = (stats.open[index] ?? 0) + 1;
        upstream.once('close', () => (stats.open[index] = (stats.open[index] ?? 1) - 1));
        // A reset on either side resets the other; an orderly end is passed on as an end (by
        // pipe), so the last bytes still buffered for the client are not thrown away.
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        upstream.once('close', (hadError) => {
          if (hadError) client.destroy();
        });
        client.once('close', () => upstream.destroy());
        const pair = { client, upstream };
        pairs.add(pair);
        client.once('close', () => pairs.delete(pair));
        if (!paused) connectPair(pair);
        return;
      }
      stats.rejected++;
      client.destroy();
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    stats: () => structuredClone(stats),
    pause() {
      if (paused) return;
      paused = true;
      resumed = new Promise((resolve) => (wake = resolve));
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    resume() {
      if (!paused) return;
      paused = false;
      wake();
      for (const pair of pairs) connectPair(pair);
    },
    close: () =>
      new Promise<void>((resolve) => {
        paused = false;
        wake();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
