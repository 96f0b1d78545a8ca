import Anthropic from '@anthropic-ai/sdk';
import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver.ts';
import { MODEL_FOR_PROTOCOL, startTopology, TEST_KEY, UPSTREAM_KEY, type Topology } from './support/topology.ts';

/** One request as the simulator logged it (credentials redacted, other headers kept). */
interface SimRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

async function simulatorRequests(topology: Topology): Promise<SimRequest[]> {
  return (await (await fetch(`${topology.simulatorUrl}/_sim/requests`)).json()) as SimRequest[];
}

/** The simulator's log entry whose body mentions `marker` (each test sends a unique one). */
async function simulatorRequestWith(topology: Topology, marker: string): Promise<SimRequest> {
  const found = (await simulatorRequests(topology)).filter((entry) => JSON.stringify(entry.body).includes(marker));
  expect(found, `simulator requests mentioning ${marker}`).toHaveLength(1);
  return found[0] as SimRequest;
}

function traceparentOf(request: SimRequest): string | undefined {
  const value = request.headers.traceparent;
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Stops the Switchyard processes, then the simulator. A process still running 5 s after SIGTERM
 * is killed: a drain can wait out its whole grace period (see horizontal-scale.e2e.test.ts), and
 * this file is not about shutdown.
 */
async function stopTopology(topology: Topology | undefined): Promise<void> {
  if (topology === undefined) return;
  await Promise.all(
    topology.processes.map(async (process) => {
      const timer = setTimeout(() => process.kill(), 5_000);
      await process.stop();
      clearTimeout(timer);
    }),
  );
  await topology.stop();
}

const inTrace = (traceId: string) => (spans: ReceivedSpan[]) => spans.filter((span) => span.traceId === traceId);
const ingressSpan = (spans: ReceivedSpan[]) => spans.find((span) => span.serviceName === 'switchyard-ingress' && span.kind === SPAN_KIND.server);
const routerSpan = (spans: ReceivedSpan[]) => spans.find((span) => span.serviceName === 'switchyard-router' && span.kind === SPAN_KIND.server);
const clientSpans = (spans: ReceivedSpan[]) => spans.filter((span) => span.serviceName === 'switchyard-router' && span.kind === SPAN_KIND.client);

/** Tracing across the split topology (issue 6): one trace ingress → router → upstream, exported over OTLP/HTTP. */
describe('tracing, split topology, OTLP/HTTP JSON export', () => {
  let receiver: OtlpReceiver;
  let topology: Topology;
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    topology = await startTopology('split', {
      env: {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.tracesUrl,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
    });
    openai = new OpenAI({ baseURL: `${topology.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: topology.url, apiKey: TEST_KEY, maxRetries: 0 });
  });

  afterAll(async () => {
    await stopTopology(topology);
    await receiver?.close();
  }, 30_000);

  it('should export one trace ingress → router → upstream for a translated stream, with GenAI attributes and the traceparent sent upstream', async () => {
    const marker = `trace-stream-${randomBytes(4).toString('hex')}`;
    const { data: stream, response } = await openai.chat.completions
      .create({
        model: MODEL_FOR_PROTOCOL.messages,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: `Stream for ${marker}` }],
      })
      .withResponse();
    let usage: OpenAI.CompletionUsage | undefined;
    let text = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toContain(marker);
    expect(usage?.prompt_tokens).toBeGreaterThan(0);
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toBeTruthy();

    // The simulator (the upstream) records headers; only credentials are redacted.
    const upstreamRequest = await simulatorRequestWith(topology, marker);
    const traceparent = traceparentOf(upstreamRequest);
    expect(traceparent, 'traceparent header on the upstream request').toMatch(TRACEPARENT);
    const [, traceId, upstreamParent] = TRACEPARENT.exec(traceparent ?? '') ?? [];
    if (traceId === undefined) throw new Error('no trace id');

    const spans = inTrace(traceId)(
      await receiver.waitFor((all) => {
        const trace = inTrace(traceId)(all);
        return ingressSpan(trace) !== undefined && routerSpan(trace) !== undefined && clientSpans(trace).length > 0;
      }),
    );
    const ingress = ingressSpan(spans);
    const router = routerSpan(spans);
    const clients = clientSpans(spans);
    if (ingress === undefined || router === undefined) throw new Error('spans missing');
    // Exactly three spans, correctly parented: ingress (root) → router → one upstream attempt.
    expect(spans).toHaveLength(3);
    // One trace: no span of this request was exported under another trace id.
    const ofRequest = receiver.spans().filter((span) => span.attributes['switchyard.request_id'] === requestId);
    expect(ofRequest.length).toBeGreaterThanOrEqual(2);
    expect(new Set(ofRequest.map((span) => span.traceId))).toEqual(new Set([traceId]));
    expect(clients).toHaveLength(1);
    const upstream = clients[0] as ReceivedSpan;
    expect(ingress.parentSpanId).toBe('');
    expect(router.parentSpanId).toBe(ingress.spanId);
    expect(upstream.parentSpanId).toBe(router.spanId);
    // The upstream request continues the client span itself.
    expect(upstreamParent).toBe(upstream.spanId);

    expect(ingress.attributes).toMatchObject({
      'switchyard.format': 'chat-completions',
      'switchyard.tenant': 'e2e',
      'switchyard.request_id': requestId,
    });
    expect(router.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': MODEL_FOR_PROTOCOL.messages,
      'gen_ai.request.stream': true,
      'gen_ai.usage.input_tokens': usage?.prompt_tokens,
      'gen_ai.usage.output_tokens': usage?.completion_tokens,
      'switchyard.format': 'chat-completions',
      'switchyard.tenant': 'e2e',
      'switchyard.request_id': requestId,
      'http.response.status_code': 200,
    });
    // The model that answered: the upstream deployment's, not the public name.
    expect(router.attributes['gen_ai.response.model']).toBe('sim-messages-model');
    expect(router.name).toBe(`chat ${MODEL_FOR_PROTOCOL.messages}`);
    expect(upstream.attributes).toMatchObject({
      'switchyard.deployment': 'up-messages/sim-messages-model',
      'http.response.status_code': 200,
    });
    expect(ingress.statusCode).not.toBe(2);
    expect(router.statusCode).not.toBe(2);
  });

  it('should continue the trace of a traceparent the client sent', async () => {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const marker = `trace-parent-${randomBytes(4).toString('hex')}`;
    const message = await anthropic.messages.create(
      { model: MODEL_FOR_PROTOCOL['chat-completions'], max_tokens: 64, messages: [{ role: 'user', content: `Continue ${marker}` }] },
      { headers: { traceparent: `00-${traceId}-${parentId}-01` } },
    );
    expect(message.content[0]).toMatchObject({ type: 'text' });

    const upstreamRequest = await simulatorRequestWith(topology, marker);
    expect(TRACEPARENT.exec(traceparentOf(upstreamRequest) ?? '')?.[1]).toBe(traceId);

    const spans = inTrace(traceId)(
      await receiver.waitFor((all) => {
        const trace = inTrace(traceId)(all);
        return ingressSpan(trace) !== undefined && routerSpan(trace) !== undefined && clientSpans(trace).length > 0;
      }),
    );
    const ingress = ingressSpan(spans);
    const router = routerSpan(spans);
    expect(ingress?.parentSpanId).toBe(parentId);
    expect(router?.parentSpanId).toBe(ingress?.spanId);
    expect(clientSpans(spans).map((span) => span.parentSpanId)).toEqual([router?.spanId]);
    expect(router?.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': MODEL_FOR_PROTOCOL['chat-completions'],
      'gen_ai.usage.input_tokens': message.usage.input_tokens,
      'gen_ai.usage.output_tokens': message.usage.output_tokens,
      'switchyard.format': 'messages',
      'switchyard.tenant': 'e2e',
    });
  });

  /**
   * A request to `dead-model` (connection refused upstream), in a trace of its own; the spans of
   * that trace. Sent once and shared: after it the deployment's circuit is open, and a second
   * request would make no attempt at all.
   */
  let deadModelSpans: Promise<ReceivedSpan[]> | undefined;
  const deadModelTrace = (): Promise<ReceivedSpan[]> => (deadModelSpans ??= sendToDeadModel());
  const sendToDeadModel = async (): Promise<ReceivedSpan[]> => {
    const traceId = randomBytes(16).toString('hex');
    const error = await openai.chat.completions
      .create({ model: 'dead-model', messages: [{ role: 'user', content: 'nobody home' }] }, { headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` } })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(OpenAI.APIError);
    return inTrace(traceId)(
      await receiver.waitFor((all) => {
        const trace = inTrace(traceId)(all);
        return ingressSpan(trace) !== undefined && routerSpan(trace) !== undefined;
      }),
    );
  };

  it('should export one client span per upstream attempt, all under the router span', async () => {
    const spans = await deadModelTrace();
    const router = routerSpan(spans);
    const attempts = clientSpans(spans);
    // DEFAULT_RETRY: the first attempt and two retries, before any byte reached the client.
    expect(attempts).toHaveLength(3);
    for (const attempt of attempts) {
      expect(attempt.parentSpanId).toBe(router?.spanId);
      expect(attempt.attributes).toMatchObject({ 'switchyard.deployment': 'up-dead/nothing', 'http.response.status_code': 502 });
    }
    expect(attempts.map((attempt) => attempt.attributes['switchyard.attempt']).sort()).toEqual([1, 2, 3]);
    expect(router?.attributes['http.response.status_code']).toBeGreaterThanOrEqual(500);
    expect(router?.attributes['error.type']).toBeDefined();
  });

  // Regression test (failed at 867354a, fixed in 3c67ed7): failed attempts ended with status UNSET
  // and no error.type (attemptOnce returns { kind: 'retry' } rather than throwing), and the
  // router and ingress server spans of a 5xx were not marked as errors either.
  it('should mark the spans of a failed request as errors: status ERROR and error.type', async () => {
    const spans = await deadModelTrace();
    const attempts = clientSpans(spans);
    expect(attempts.length).toBeGreaterThan(0);
    for (const span of [...attempts, routerSpan(spans), ingressSpan(spans)]) {
      expect({ name: span?.name, status: span?.statusCode, errorType: span?.attributes['error.type'] !== undefined }).toEqual({
        name: span?.name,
        status: 2,
        errorType: true,
      });
    }
  });

  // Regression test (failed at 867354a, fixed in 3c67ed7): ATTR_SWITCHYARD_ATTEMPT is documented as
  // 1 for the first attempt, but the 0-based loop index was exported.
  it('should number upstream attempts from 1, as ATTR_SWITCHYARD_ATTEMPT documents', async () => {
    const traceId = randomBytes(16).toString('hex');
    await openai.chat.completions.create(
      { model: MODEL_FOR_PROTOCOL['chat-completions'], messages: [{ role: 'user', content: 'count attempts' }] },
      { headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` } },
    );
    const spans = inTrace(traceId)(await receiver.waitFor((all) => clientSpans(inTrace(traceId)(all)).length > 0));
    expect(clientSpans(spans).map((span) => span.attributes['switchyard.attempt'])).toEqual([1]);
  });

  it('should put neither the client key nor the upstream key in any exported span or resource', async () => {
    expect(receiver.spans().length).toBeGreaterThan(0);
    expect(receiver.unparsedRequests()).toBe(0);
    const exported = receiver.rawBodies().join('\n');
    expect(exported).not.toContain(TEST_KEY);
    expect(exported).not.toContain(UPSTREAM_KEY);
    // Also each attribute value on its own (in case an exporter ever encodes values differently).
    for (const span of receiver.spans()) {
      for (const value of [...Object.values(span.attributes), ...Object.values(span.resourceAttributes)]) {
        const text = JSON.stringify(value);
        expect(text).not.toContain(TEST_KEY);
        expect(text).not.toContain(UPSTREAM_KEY);
        expect(text).not.toContain('sk-sy-');
      }
    }
  });
});

/**
 * Tracing off (the default): with no OTEL_* endpoint nothing is exported, even to the SDK's
 * default http://localhost:4318, and no traceparent is written to the upstream.
 */
describe('tracing, split topology, no OTEL endpoint configured', () => {
  let receiver: OtlpReceiver;
  let topology: Topology;
  let onDefaultPort = true;

  beforeAll(async () => {
    // Listen where the SDK would export by default, if that port is free here.
    receiver = await startOtlpReceiver({ port: 4318 }).catch(() => {
      onDefaultPort = false;
      return startOtlpReceiver();
    });
    topology = await startTopology('split', {
      env: {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
        OTEL_EXPORTER_OTLP_ENDPOINT: '',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
    });
  });

  afterAll(async () => {
    await stopTopology(topology);
    await receiver?.close();
  }, 30_000);

  it('should export nothing and send no traceparent upstream', async () => {
    const openai = new OpenAI({ baseURL: `${topology.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    const marker = `untraced-${randomBytes(4).toString('hex')}`;
    const stream = await openai.chat.completions.create({
      model: MODEL_FOR_PROTOCOL.messages,
      stream: true,
      messages: [{ role: 'user', content: `Stream for ${marker}` }],
    });
    for await (const chunk of stream) void chunk;
    const upstreamRequest = await simulatorRequestWith(topology, marker);
    expect(traceparentOf(upstreamRequest)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect({ onDefaultPort, exports: receiver.rawBodies().length }).toEqual({ onDefaultPort, exports: 0 });
  });
});
