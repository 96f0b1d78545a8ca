import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { getFreePort } from '@switchyard/testkit';
import { describe, expect, it, vi } from 'vitest';
import { simulatorConfig } from './support/replicas.ts';
import { writeConfig } from './support/scratch.ts';
import { startSwitchyard, type SwitchyardProcess } from './support/start-process.ts';

const BIN = fileURLToPath(new URL('../../bin/switchyard.js', import.meta.url));
const KEY = 'sk-sy-cli-e2e-key-0123456789abcdef';

const demoConfig = simulatorConfig(KEY);

const TOO_LONG = 'Too long [[sim:chunk_delay_ms=100,words=60]]';

/** A stream request in each client format, and the error event that format ends a failed stream with. */
const STREAMS = [
  {
    format: 'chat-completions',
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${KEY}` },
    body: { model: 'm', stream: true, messages: [{ role: 'user', content: TOO_LONG }] },
    lastEvent: /^data: \{"error":\{/,
  },
  {
    format: 'responses',
    path: '/v1/responses',
    headers: { authorization: `Bearer ${KEY}` },
    body: { model: 'm', stream: true, input: TOO_LONG },
    lastEvent: /^event: error\ndata: \{"type":"error"/,
  },
  {
    format: 'messages',
    path: '/v1/messages',
    headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
    body: { model: 'm', max_tokens: 100, stream: true, messages: [{ role: 'user', content: TOO_LONG }] },
    lastEvent: /^event: error\ndata: \{"type":"error"/,
  },
  {
    format: 'generate-content',
    path: '/v1beta/models/m:streamGenerateContent?alt=sse',
    headers: { 'x-goog-api-key': KEY },
    body: { contents: [{ role: 'user', parts: [{ text: TOO_LONG }] }] },
    lastEvent: /^data: \{"error":\{"code":/,
  },
];

describe('the switchyard CLI', () => {
  it('should refuse a bad config at start with the path of the bad field', () => {
    const config = writeConfig(demoConfig.replace('model: sim-model', 'model: sim-model, weight: -2'));
    const run = spawnSync(process.execPath, [BIN, 'all', '--config', config, '--port', '0'], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('models.0.deployments.0.weight');
  });

  it('should print usage and exit 2 for an unknown target', () => {
    const run = spawnSync(process.execPath, [BIN, 'everything'], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('Usage: switchyard <all|ingress|router|catalog|worker|simulator>');
  });

  it('should print a generated demo key once, to the terminal, and never log it', async () => {
    const config = writeConfig(demoConfig.replace(`key: ${KEY}`, 'generate: true'));
    const gateway = await startSwitchyard('all', { port: await getFreePort(), config });
    try {
      const key = /Demo API key for tenant 't': (sk-sy-\S+)/.exec(gateway.output())?.[1];
      expect(key).toBeDefined();
      const response = await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
      expect(gateway.output().split(key ?? '').length).toBe(2);
    } finally {
      await gateway.stop();
    }
  });

  it('should drain an in-flight stream on SIGTERM, refuse new work, and exit 0', async () => {
    const gateway = await startSwitchyard('all', { port: await getFreePort(), config: writeConfig(demoConfig) });
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'Drain me [[sim:chunk_delay_ms=100,words=15]]' }] }),
    });
    const reader = response.body?.getReader();
    const first = await reader?.read();
    expect(first?.done).toBe(false);
    const exited = new Promise<number | null>((resolve) => gateway.child.once('exit', (code) => resolve(code)));
    gateway.child.kill('SIGTERM');
    // No new work once draining: the listener closes, well before the stream's 1.5 s are over
    // (polled: a busy CI machine may take longer than any fixed pause to deliver the signal).
    await vi.waitFor(() => expect(fetch(`${gateway.url}/readyz`)).rejects.toThrow(), { timeout: 1_000, interval: 20 });
    let text = new TextDecoder().decode(first?.value);
    for (;;) {
      const next = await reader?.read();
      if (next === undefined || next.done) break;
      text += new TextDecoder().decode(next.value);
    }
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(await exited).toBe(0);
  });

  // Grace-period expiry, in each client format: the stream still open ends with that format's
  // own error event (never a silent cut), whether the process serves it (`all`) or relays a
  // router's bytes (`ingress`).
  describe.each(STREAMS)("a $format stream still open when the grace period runs out", (stream) => {
    const endsWithErrorEvent = async (gateway: SwitchyardProcess) => {
      const response = await fetch(`${gateway.url}${stream.path}`, { method: 'POST', headers: { ...stream.headers, 'content-type': 'application/json' }, body: JSON.stringify(stream.body) });
      expect(response.status).toBe(200);
      const exited = new Promise<number | null>((resolve) => gateway.child.once('exit', (code) => resolve(code)));
      const text = response.text();
      await new Promise((resolve) => setTimeout(resolve, 200));
      gateway.child.kill('SIGTERM');
      const body = await text;
      const events = body.trim().split(/\r?\n\r?\n/);
      expect(events.length).toBeGreaterThan(2);
      expect(events[events.length - 1]).toMatch(stream.lastEvent);
      expect(events.slice(0, -1).some((event) => stream.lastEvent.test(event))).toBe(false);
      expect(body).not.toContain('[DONE]');
      expect(await exited).toBe(0);
    };

    it('should end with the error event, then exit 0 (all)', async () => {
      const gateway = await startSwitchyard('all', { port: await getFreePort(), config: writeConfig(demoConfig), env: { SWITCHYARD_SHUTDOWN_GRACE_MS: '300' } });
      try {
        await endsWithErrorEvent(gateway);
      } finally {
        await gateway.stop();
      }
    });

    it("should end a relayed stream with the error event when an ingress's grace period runs out", async () => {
      const config = writeConfig(demoConfig);
      const catalog = await startSwitchyard('catalog', { port: await getFreePort(), config });
      const router = await startSwitchyard('router', { port: await getFreePort(), env: { SWITCHYARD_CATALOG_URL: catalog.url } });
      const ingress = await startSwitchyard('ingress', {
        port: await getFreePort(),
        env: { SWITCHYARD_CATALOG_URL: catalog.url, SWITCHYARD_ROUTER_URL: router.url, SWITCHYARD_SHUTDOWN_GRACE_MS: '300' },
      });
      try {
        await endsWithErrorEvent(ingress);
      } finally {
        await Promise.all([ingress.stop(), router.stop(), catalog.stop()]);
      }
    });
  });
});
