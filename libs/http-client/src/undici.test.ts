import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import * as undici from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, Pool, errors } from './undici.ts';

describe('undici without its index', () => {
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    server = createServer((request, response) => response.end(`${request.method} ${request.url}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  // The same module instances as the index's, so an `instanceof` on an error holds whichever loaded it.
  it("should be the classes undici's index exports", () => {
    expect(Agent).toBe(undici.Agent);
    expect(Pool).toBe(undici.Pool);
    expect(errors).toBe(undici.errors);
  });

  // In a fresh process: this one has loaded the index, which mixes the request API in by itself.
  it('should serve requests without loading the index', async () => {
    const script = `
      import { createRequire } from 'node:module';
      import { Pool } from './undici.ts';
      const pool = new Pool(${JSON.stringify(origin)});
      const response = await pool.request({ path: '/snapshot?version=1', method: 'GET' });
      const text = await response.body.text();
      await pool.close();
      const index = createRequire(import.meta.url).resolve('undici');
      console.log(JSON.stringify({ status: response.statusCode, text, indexLoaded: index in createRequire(import.meta.url).cache }));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: import.meta.dirname });
    expect(JSON.parse(stdout)).toEqual({ status: 200, text: 'GET /snapshot?version=1', indexLoaded: false });
  });
});
