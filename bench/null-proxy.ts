/**
 * The "null proxy": the cheapest HTTP pass-through Node can do, as the floor any Node gateway
 * is measured against. No parsing, no auth, no buffering: the request is piped to the upstream
 * over a keep-alive agent and the answer is piped back with its status and headers.
 *
 *   node bench/null-proxy.ts --port 9000 --host 127.0.0.1 --upstream http://127.0.0.1:9001
 */
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { port: { type: 'string' }, host: { type: 'string' }, upstream: { type: 'string' } } });
const upstream = new URL(values.upstream ?? 'http://127.0.0.1:8081');
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 1024 });

const server = http.createServer((request, response) => {
  const proxied = http.request(
    { host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: request.headers, agent },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    },
  );
  proxied.setNoDelay(true);
  proxied.on('error', () => {
    if (!response.headersSent) response.writeHead(502);
    response.end();
  });
  response.on('close', () => {
    if (!response.writableFinished) proxied.destroy();
  });
  request.pipe(proxied);
});
server.keepAliveTimeout = 75_000;
server.requestTimeout = 0;
server.on('connection', (socket) => socket.setNoDelay(true));
server.listen(Number(values.port ?? 8080), values.host ?? '127.0.0.1', () => {
  process.stdout.write(`null proxy on ${values.host ?? '127.0.0.1'}:${values.port} → ${upstream.origin}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
