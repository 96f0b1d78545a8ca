import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { createCallBound } from './call-bound.ts';

const timedOut = () => new Error('timed out');
const never = () => new Promise<never>(() => {});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: ChildProcess | undefined;
afterEach(() => {
  server?.kill();
  server = undefined;
});

describe('createCallBound', () => {
  it('holds nothing of a call once it has settled, though the call waits in the queue until its deadline', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const bound = createCallBound(60_000, timedOut);
    let result: WeakRef<object> | undefined;
    await (async () => {
      const value = { answer: new Array(1_000).fill('reply') };
      result = new WeakRef(value);
      expect(await bound(Promise.resolve(value))).toBe(value);
    })();
    // Finalisation needs a turn after the collection.
    await sleep(0);
    gc();
    await sleep(0);
    gc();
    expect(result?.deref()).toBeUndefined();
  });

  it('passes values and failures of calls that finish in time', async () => {
    const bound = createCallBound(200, timedOut);
    await expect(bound(Promise.resolve(7))).resolves.toBe(7);
    await expect(bound(Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    await expect(bound(sleep(20).then(() => 'late but in time'))).resolves.toBe('late but in time');
  });

  it('fails each hung call at its own deadline, whatever finishes around it', async () => {
    const bound = createCallBound(60, timedOut);
    const started = performance.now();
    const first = bound(never()).catch((error: Error) => ({ error: error.message, after: performance.now() - started }));
    await sleep(40);
    const answered = bound(sleep(10).then(() => 'answered'));
    const second = bound(never()).catch((error: Error) => ({ error: error.message, after: performance.now() - started }));
    await expect(answered).resolves.toBe('answered');
    const [firstOutcome, secondOutcome] = await Promise.all([first, second]);
    expect(firstOutcome.error).toBe('timed out');
    expect(firstOutcome.after).toBeGreaterThanOrEqual(59);
    expect(firstOutcome.after).toBeLessThan(95);
    // Not failed with the first: its own deadline is 40 ms later.
    expect(secondOutcome.after).toBeGreaterThanOrEqual(99);
  });

  it('keeps working after a quiet spell and across many calls', async () => {
    const bound = createCallBound(30, timedOut);
    const values = await Promise.all(Array.from({ length: 3000 }, (_, index) => bound(Promise.resolve(index))));
    expect(values.at(-1)).toBe(2999);
    await sleep(80);
    await expect(bound(never())).rejects.toThrow('timed out');
    await expect(bound(Promise.resolve('again'))).resolves.toBe('again');
  });

  it('reads a reply that arrived while the event loop was busy past the deadline before failing the call', async () => {
    // A server in another process answers at once: the reply waits in the socket while this one spins.
    const script = "const s = require('net').createServer((c) => c.on('data', () => c.write('pong'))).listen(0, '127.0.0.1', () => console.log(s.address().port))";
    server = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [portLine] = (await once(server.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
    const socket = connect(Number(String(portLine).trim()), '127.0.0.1');
    await once(socket, 'connect');
    const bound = createCallBound(20, timedOut);
    const reply = bound(once(socket, 'data').then(([data]) => String(data)));
    socket.write('ping');
    const spinUntil = performance.now() + 100;
    while (performance.now() < spinUntil) {
      // Busy: the deadline passes while the reply waits to be read.
    }
    await expect(reply).resolves.toBe('pong');
    socket.destroy();
  });

  it('gives a call that could not even start before a stall past its deadline a fresh bound from when the loop is free', async () => {
    const bound = createCallBound(20, timedOut);
    // Like a batched Redis call: it starts at the end of this turn and is answered a little later.
    const reply = bound(new Promise<string>((resolve) => setImmediate(() => setTimeout(() => resolve('answered after the stall'), 5))));
    const spinUntil = performance.now() + 100;
    while (performance.now() < spinUntil) {
      // Busy past the deadline before the call has left.
    }
    await expect(reply).resolves.toBe('answered after the stall');
  });

  it('still fails a hung call after a stall, one fresh bound later', async () => {
    const bound = createCallBound(20, timedOut);
    const started = performance.now();
    const hung = bound(never()).catch((error: Error) => ({ error: error.message, after: performance.now() - started }));
    const spinUntil = performance.now() + 100;
    while (performance.now() < spinUntil) {
      // Busy past the deadline.
    }
    const outcome = await hung;
    expect(outcome.error).toBe('timed out');
    // The stall (100 ms), then one more bound (20 ms): extended once, not again.
    expect(outcome.after).toBeGreaterThanOrEqual(119);
    expect(outcome.after).toBeLessThan(200);
  });
});
