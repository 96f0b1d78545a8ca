import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getFreePort } from '@switchyard/testkit';
import { describe, expect, it } from 'vitest';
import { startSwitchyard } from './support/start-process.ts';

const BIN = fileURLToPath(new URL('../../bin/switchyard.js', import.meta.url));
const KEY = 'sk-sy-cli-e2e-key-0123456789abcdef';

function writeConfig(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'switchyard-cli-')), 'config.yaml');
  writeFileSync(file, text);
  return file;
}

const demoConfig = `
providers:
  sim: { protocol: simulator }
models:
  - { name: m, deployments: [{ provider: sim, model: sim-model }] }
tenants:
  - id: t
    keys: [{ id: k, key: ${KEY} }]
`;

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
    await new Promise((resolve) => setTimeout(resolve, 100));
    // No new work once draining: the listener is closed.
    await expect(fetch(`${gateway.url}/readyz`)).rejects.toThrow();
    let text = new TextDecoder().decode(first?.value);
    for (;;) {
      const next = await reader?.read();
      if (next === undefined || next.done) break;
      text += new TextDecoder().decode(next.value);
    }
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(await exited).toBe(0);
  });

  it('should end a stream still open when the grace period runs out with the error event, then exit 0', async () => {
    const gateway = await startSwitchyard('all', {
      port: await getFreePort(),
      config: writeConfig(demoConfig),
      env: { SWITCHYARD_SHUTDOWN_GRACE_MS: '300' },
    });
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'Too long [[sim:chunk_delay_ms=100,words=60]]' }] }),
    });
    const exited = new Promise<number | null>((resolve) => gateway.child.once('exit', (code) => resolve(code)));
    const text = response.text();
    await new Promise((resolve) => setTimeout(resolve, 200));
    gateway.child.kill('SIGTERM');
    const body = await text;
    const events = body.trim().split('\n\n');
    expect(events.length).toBeGreaterThan(2);
    expect(events[events.length - 1]).toMatch(/^data: \{"error":\{/);
    expect(body).not.toContain('[DONE]');
    expect(await exited).toBe(0);
  });

  it("should end a relayed stream with the format's error event when an ingress's grace period runs out", async () => {
    const config = writeConfig(demoConfig);
    const catalog = await startSwitchyard('catalog', { port: await getFreePort(), config });
    const router = await startSwitchyard('router', { port: await getFreePort(), env: { SWITCHYARD_CATALOG_URL: catalog.url } });
    const ingress = await startSwitchyard('ingress', {
      port: await getFreePort(),
      env: { SWITCHYARD_CATALOG_URL: catalog.url, SWITCHYARD_ROUTER_URL: router.url, SWITCHYARD_SHUTDOWN_GRACE_MS: '300' },
    });
    try {
      const response = await fetch(`${ingress.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'Too long [[sim:chunk_delay_ms=100,words=60]]' }] }),
      });
      const exited = new Promise<number | null>((resolve) => ingress.child.once('exit', (code) => resolve(code)));
      const text = response.text();
      await new Promise((resolve) => setTimeout(resolve, 200));
      ingress.child.kill('SIGTERM');
      const events = (await text).trim().split('\n\n');
      expect(events.length).toBeGreaterThan(2);
      expect(events[events.length - 1]).toMatch(/^event: error\ndata: \{"type":"error"/);
      expect(await exited).toBe(0);
    } finally {
      await Promise.all([ingress.stop(), router.stop(), catalog.stop()]);
    }
  });
});
