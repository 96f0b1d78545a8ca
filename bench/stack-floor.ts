/**
 * The "stack floor": the cheapest proxy built from Switchyard's own stack — fastify with a raw
 * body, undici to the upstream, the body parsed and re-serialised once (the model renamed) and a
 * non-streaming answer read whole and parsed (as reading its usage needs). No auth, limits,
 * metrics, logs or translation. Beside the null proxy it shows what the chosen stack costs by
 * itself, so that what Switchyard adds on top can be told from what fastify and undici cost.
 *
 *   node bench/stack-floor.ts --port 9000 --host 127.0.0.1 --upstream http://127.0.0.1:9001
 */
import Fastify from 'fastify';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';

const { values } = parseArgs({ options: { port: { type: 'string' }, host: { type: 'string' }, upstream: { type: 'string' } } });
const upstream = new URL(values.upstream ?? 'http://127.0.0.1:8081').origin;
const agent = new Agent({ keepAliveTimeout: 60_000 });
const app = Fastify({ logger: false, requestTimeout: 0, keepAliveTimeout: 75_000 });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

/** The vendors' credentials and version header, as the bench's scenarios send them. */
const FORWARDED = ['authorization', 'x-api-key', 'anthropic-version', 'x-goog-api-key'] as const;

function upstreamHeaders(incoming: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const name of FORWARDED) {
    const value = incoming[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

app.get('/_sim/stats', async (_request, reply) => {
  const answer = await request(`${upstream}/_sim/stats`, { dispatcher: agent });
  return reply.code(answer.statusCode).send(await answer.body.text());
});

app.post('/*', async (incoming, reply) => {
  const body = JSON.parse((incoming.body as Buffer).toString('utf8')) as Record<string, unknown>;
  const answer = await request(`${upstream}${incoming.url}`, {
    method: 'POST',
    dispatcher: agent,
    headers: upstreamHeaders(incoming.headers),
    body: JSON.stringify(body),
  });
  reply.hijack();
  const response = reply.raw;
  // generate-content says it streams in its path, the others in their body.
  if (body.stream === true || incoming.url.includes(':streamGenerateContent')) {
    response.writeHead(answer.statusCode, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for await (const chunk of answer.body) response.write(chunk);
    response.end();
    return;
  }
  const text = await answer.body.text();
  JSON.parse(text);
  response.writeHead(answer.statusCode, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
});

await app.listen({ port: Number(values.port ?? 8080), host: values.host ?? '127.0.0.1' });
process.stdout.write(`stack floor on ${values.host ?? '127.0.0.1'}:${values.port} → ${upstream}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
