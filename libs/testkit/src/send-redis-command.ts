import { connect } from 'node:net';

/**
 * Sends one command over a fresh connection and resolves with the first line of the reply
 * (`+PONG`, `+OK`, `-ERR …`). The testkit speaks RESP itself for its two needs (readiness
 * probe, flush between tests) so waiting for a server never involves a client's reconnect loop.
 */
export async function sendRedisCommand(url: string, args: readonly string[], timeoutMs = 1_000): Promise<string> {
  const { hostname, port } = new URL(url);
  const request = `*${args.length}\r\n` + args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('');
  return new Promise<string>((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let received = '';
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`redis at ${url} did not answer ${args[0]} within ${timeoutMs} ms`)));
    socket.on('error', reject);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      const end = received.indexOf('\r\n');
      if (end === -1) return;
      socket.destroy();
      resolve(received.slice(0, end));
    });
    socket.on('close', () => reject(new Error(`redis at ${url} closed the connection before answering ${args[0]}`)));
  });
}

/** Polls PING until the server answers PONG (a loading server answers -LOADING) or the deadline passes. */
export async function waitForRedis(url: string, timeoutMs = 10_000, isAlive: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`redis at ${url} exited while starting`, { cause: lastError });
    try {
      const reply = await sendRedisCommand(url, ['PING'], 500);
      if (reply === '+PONG') return;
      lastError = new Error(reply);
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`redis at ${url} did not answer PING within ${timeoutMs} ms`, { cause: lastError });
}
