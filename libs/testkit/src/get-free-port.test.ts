import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { getFreePort } from './get-free-port.ts';

describe('getFreePort', () => {
  it('should return a port another listener can bind', async () => {
    const port = await getFreePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
