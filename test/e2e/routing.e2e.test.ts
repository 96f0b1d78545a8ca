import Anthropic from '@anthropic-ai/sdk';
import { getFreePort } from '@switchyard/testkit';
import { createServer, type Server } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSwitchyard, type SwitchyardProcess } from './support/start-process.ts';
import { writeConfig } from './support/scratch.ts';

const KEY = 'sk-sy-routing-e2e-key-0123456789abcdef';

/** A port that accepts TCP connections and resets them at once, counting how many came. */
function startResettingServer(port: number): Promise<{ connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    socket.resetAndDestroy();
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () =>
      resolve({ connections: () => connections, close: () => new Promise((done) => server.close(() => done())) }),
    );
  });
}

async function simulatorRequests(simulator: SwitchyardProcess, model: string): Promise<number> {
  const requests = (await (await fetch(`${simulator.url}/_sim/requests`)).json()) as Array<{ body: { model?: string } }>;
  return requests.filter((request) => request.body.model === model).length;
}

describe('routing: retries, cooldowns, fallbacks, cancellation (all topology)', () => {
  let steady: SwitchyardProcess;
  let flaky: SwitchyardProcess;
  let gateway: SwitchyardProcess;
  let deadPort: number;
  let resetting: Awaited<ReturnType<typeof startResettingServer>>;
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    steady = await startSwitchyard('simulator', { port: await getFreePort(), readyPath: '/_sim/stats' });
    flaky = await startSwitchyard('simulator', { port: await getFreePort(), readyPath: '/_sim/stats' });
    deadPort = await getFreePort();
    resetting = await startResettingServer(deadPort);
    const config = writeConfig(
      `
providers:
  steady: { protocol: chat-completions, baseUrl: ${steady.url}/v1 }
  steady-messages: { protocol: messages, baseUrl: ${steady.url} }
  flaky: { protocol: chat-completions, baseUrl: ${flaky.url}/v1, headers: { x-sim-fail-rate: "0.3", x-sim-fail-status: "500" } }
  reset: { protocol: chat-completions, baseUrl: http://127.0.0.1:${deadPort}/v1 }
  throttled: { protocol: chat-completions, baseUrl: ${steady.url}/v1, headers: { x-sim-fail-status: "429", x-sim-fail-retry-after: "3" } }
  breaking: { protocol: chat-completions, baseUrl: ${steady.url}/v1 }
models:
  - name: flaky-pair
    deployments: [{ provider: steady, model: steady-model }, { provider: flaky, model: flaky-model }]
    retry: { attempts: 2, backoffMs: 5, maxBackoffMs: 50 }
  - name: recovering
    # Tiers, not weights: the first request must reach the broken deployment every time.
    deployments: [{ provider: reset, model: recovering-model, priority: 0 }, { provider: steady, model: backup-model, priority: 1 }]
    circuitBreaker: { failures: 1, cooldownMs: 1500 }
    retry: { attempts: 2, backoffMs: 5, maxBackoffMs: 50 }
  - name: throttled
    deployments: [{ provider: throttled, model: throttled-model }]
    retry: { attempts: 1, backoffMs: 5, maxBackoffMs: 50 }
  - name: chat-primary
    deployments: [{ provider: throttled, model: throttled-primary }]
    fallbacks: [messages-backup]
    retry: { attempts: 0, backoffMs: 5, maxBackoffMs: 50 }
  - name: messages-backup
    deployments: [{ provider: steady-messages, model: backup-claude }]
  - name: plain
    deployments: [{ provider: steady, model: plain-model }]
  - name: breaking
    deployments: [{ provider: breaking, model: breaking-model }]
    circuitBreaker: { failures: 2, cooldownMs: 60000 }
    retry: { attempts: 0, backoffMs: 5, maxBackoffMs: 50 }
server:
  streamKeepAliveMs: 100
tenants:
  - id: routing
    keys: [{ id: k, key: ${KEY} }]
`,
    );
    gateway = await startSwitchyard('all', { port: await getFreePort(), config });
    openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: KEY, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: gateway.url, apiKey: KEY, maxRetries: 0 });
  });

  afterAll(async () => {
    await Promise.all([gateway?.stop(), steady?.stop(), flaky?.stop(), resetting?.close()]);
  });

  it('should answer every request when one of two deployments fails 30% of the time', async () => {
    let failures = 0;
    const one = () =>
      openai.chat.completions.create({ model: 'flaky-pair', messages: [{ role: 'user', content: 'hi' }] }).catch(() => failures++);
    for (let batch = 0; batch < 50; batch++) await Promise.all(Array.from({ length: 10 }, one));
    expect(failures).toBe(0);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    const retries = [...metrics.matchAll(/^switchyard_retries_total\{provider="flaky"\} (\d+)/gm)].map((match) => Number(match[1]));
    const steadyRetries = [...metrics.matchAll(/^switchyard_retries_total\{provider="steady"\} (\d+)/gm)].map((match) => Number(match[1]));
    expect((retries[0] ?? 0) + (steadyRetries[0] ?? 0)).toBeGreaterThan(0);
  });

  it('should stop sending to a broken deployment during its cooldown, then probe it and recover', async () => {
    // First request: the resetting deployment fails once, the circuit opens, the retry goes to the backup.
    await openai.chat.completions.create({ model: 'recovering', messages: [{ role: 'user', content: 'one' }] });
    const afterOpen = resetting.connections();
    expect(afterOpen).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 5; i++) await openai.chat.completions.create({ model: 'recovering', messages: [{ role: 'user', content: 'during' }] });
    expect(resetting.connections()).toBe(afterOpen);
    // The deployment comes back: a simulator now listens on its port.
    await resetting.close();
    const revived = await startSwitchyard('simulator', { port: deadPort, readyPath: '/_sim/stats' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 1600));
      for (let i = 0; i < 5; i++) await openai.chat.completions.create({ model: 'recovering', messages: [{ role: 'user', content: 'after' }] });
      expect(await simulatorRequests(revived, 'recovering-model')).toBeGreaterThanOrEqual(4);
      const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
      expect(metrics).toMatch(/switchyard_circuit_state\{deployment="reset\/recovering-model"\} 0/);
    } finally {
      await revived.stop();
    }
  });

  it('should honour an upstream 429 retry-after and answer 429 in the client format when every deployment is exhausted', async () => {
    const before = await simulatorRequests(steady, 'throttled-model');
    const first = await openai.chat.completions.create({ model: 'throttled', messages: [{ role: 'user', content: 'x' }] }).catch((error: unknown) => error);
    expect(first).toBeInstanceOf(OpenAI.RateLimitError);
    expect((first as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after')).toBe('3');
    expect(await simulatorRequests(steady, 'throttled-model')).toBe(before + 1);
    // Within the retry-after window the deployment is not called at all.
    const second = await anthropic.messages.create({ model: 'throttled', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((error: unknown) => error);
    expect(second).toBeInstanceOf(Anthropic.RateLimitError);
    expect(Number((second as InstanceType<typeof Anthropic.RateLimitError>).headers?.get('retry-after'))).toBeGreaterThan(0);
    expect(await simulatorRequests(steady, 'throttled-model')).toBe(before + 1);
  });

  it('should fall back from a chat-completions model to a messages model, for chat and messages clients', async () => {
    const chat = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'chat-primary', messages: [{ role: 'user', content: 'Fallback please' }] }),
    });
    expect(chat.status).toBe(200);
    expect(chat.headers.get('x-switchyard-fallback-model')).toBe('messages-backup');
    const body = (await chat.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]?.message.content).toContain('Fallback please');
    const message = await anthropic.messages.create({ model: 'chat-primary', max_tokens: 50, messages: [{ role: 'user', content: 'Fallback too' }] });
    expect(message.content[0]?.type === 'text' ? message.content[0].text : '').toContain('Fallback too');
    expect(await simulatorRequests(steady, 'backup-claude')).toBeGreaterThanOrEqual(2);
  });

  it('should end a stream broken by the upstream with the error event, without retrying', async () => {
    const before = await simulatorRequests(steady, 'plain-model');
    const received: string[] = [];
    const iterate = async () => {
      const stream = await openai.chat.completions.create({
        model: 'plain',
        stream: true,
        messages: [{ role: 'user', content: 'Break after some [[sim:fail_after_chunks=4]]' }],
      });
      for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
    };
    await expect(iterate()).rejects.toThrow();
    expect(received.length).toBeGreaterThanOrEqual(3);
    expect(await simulatorRequests(steady, 'plain-model')).toBe(before + 1);
  });

  it('should count answers the upstream broke after its 200 as failures, in the metrics and against the circuit', async () => {
    const chat = (content: string, stream = false) =>
      fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'breaking', stream, messages: [{ role: 'user', content }] }),
      });
    const failures = async () => {
      const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
      const counts = [...metrics.matchAll(/^switchyard_upstream_errors_total\{[^}]*provider="breaking"[^}]*\} (\d+)/gm)];
      const circuit = /^switchyard_circuit_state\{deployment="breaking\/breaking-model"\} (\d)/m.exec(metrics)?.[1];
      return { errors: counts.reduce((sum, match) => sum + Number(match[1]), 0), circuit };
    };
    expect((await chat('A whole answer')).status).toBe(200);
    // A stream that starts well and breaks, then a 200 whose body is not JSON: two failures in a row.
    const broken = await chat('Break after some [[sim:fail_after_chunks=2]]', true);
    expect(broken.status).toBe(200);
    expect(await broken.text()).toContain('error');
    expect((await chat('x [[sim:malformed]]')).status).toBe(502);
    expect(await failures()).toEqual({ errors: 2, circuit: '1' });
    // The circuit is open: the next request is refused without reaching the upstream.
    const sent = await simulatorRequests(steady, 'breaking-model');
    expect((await chat('Anyone there?')).status).toBe(503);
    expect(await simulatorRequests(steady, 'breaking-model')).toBe(sent);
  });

  it('should close the upstream connection within 100 ms when the client goes away mid-stream', async () => {
    const statsBefore = (await (await fetch(`${steady.url}/_sim/stats`)).json()) as { abortedStreams: number };
    const controller = new AbortController();
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'plain', stream: true, messages: [{ role: 'user', content: 'Slow [[sim:chunk_delay_ms=200,words=40]]' }] }),
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    await reader?.read();
    const abortedAt = performance.now();
    controller.abort();
    let seenAt: number | undefined;
    while (performance.now() - abortedAt < 2000) {
      const stats = (await (await fetch(`${steady.url}/_sim/stats`)).json()) as { abortedStreams: number };
      if (stats.abortedStreams > statsBefore.abortedStreams) {
        seenAt = performance.now();
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(seenAt).toBeDefined();
    expect((seenAt ?? Infinity) - abortedAt).toBeLessThan(100);
  });

  it.each([
    ['/v1/chat/completions', { authorization: `Bearer ${KEY}` }, { messages: [{ role: 'user', content: 'Quiet start [[sim:ttft_ms=450]]' }] }, ': keep-alive\n\n'],
    [
      '/v1/messages',
      { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
      { max_tokens: 50, messages: [{ role: 'user', content: 'Quiet start [[sim:ttft_ms=450]]' }] },
      'event: ping\ndata: {"type": "ping"}\n\n',
    ],
  ])('should keep a quiet %s stream alive between whole events', async (path, headers, body, keepAlive) => {
    const response = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'plain', stream: true, ...body }),
    });
    const text = await response.text();
    // The quiet start is filled with whole keep-alives; without them the stream is the plain event sequence.
    expect(text.startsWith(keepAlive)).toBe(true);
    const events = text.split(keepAlive).join('').split('\n\n').filter((block) => block !== '');
    expect(events[0]).toMatch(/^(data: \{"id"|event: message_start\n)/);
    for (const event of events) expect(event).toMatch(/^(event: [a-z_.]+\n)?data: /);
  });
});
