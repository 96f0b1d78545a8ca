import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago: the OS picks it for a throwaway listener,
 * which is closed before the port is returned. Another process may grab it in between, so
 * callers that can should retry on EADDRINUSE.
 */
export async function getFreePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('getFreePort: the listener has no TCP address');
  return address.port;
}
