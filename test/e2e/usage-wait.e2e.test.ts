import { getFreePort, startRedis, type RedisServer } from '@switchyard/testkit';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatModelConfig } from './support/replicas.ts';
import { writeConfig } from './support/scratch.ts';
import { startSwitchyard, type SwitchyardProcess } from './support/start-process.ts';
import { startTcpBalancer, type TcpBalancer } from './support/tcp-balancer.ts';

const KEY = 'sk-sy-usage-wait-key-0123456789abcdef';

/**
 * What a stream waits for while its usage is made durable (issue 7): only its end. The
 * simulator sends a whole stream in one write, so the router reads it in one go; Redis sits
 * behind a proxy that the test stalls. The tenant has no limits, so admission needs no Redis,
 * and only the usage event waits for it.
 */
describe('a stream whose usage cannot be staged yet (all + Redis)', () => {
  let redis: RedisServer;
  let proxy: TcpBalancer;
  let simulator: SwitchyardProcess;
  let gateway: SwitchyardProcess;

  beforeAll(async () => {
    redis = await startRedis();
    proxy = await startTcpBalancer([{ host: '127.0.0.1', port: Number(new URL(redis.url).port) }]);
    simulator = await startSwitchyard('simulator', { port: await getFreePort(), readyPath: '/_sim/stats' });
    const config = writeConfig(chatModelConfig(simulator.url, [`{ id: t, keys: [{ id: k, key: ${KEY} }] }`]));
    gateway = await startSwitchyard('all', { port: await getFreePort(), config, env: { REDIS_URL: proxy.url.replace('http:', 'redis:') } });
  }, 60_000);

  afterAll(async () => {
    proxy?.resume();
    await gateway?.stop();
    await simulator?.stop();
    await proxy?.close();
    await redis?.stop();
  });

  it('should send the answer at once and hold only its end until its usage is staged', async () => {
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: KEY, maxRetries: 0 });
    // A first stream, so that every connection to Redis is open before the stall.
    for await (const chunk of await client.chat.completions.create({ model: 'm', stream: true, messages: [{ role: 'user', content: 'warm up' }] })) {
      expect(chunk.object).toBe('chat.completion.chunk');
    }

    proxy.pause();
    const stream = await client.chat.completions.create({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hold the end [[sim:words=12]]' }] });
    const chunks = stream[Symbol.asyncIterator]();
    let text = '';
    for (;;) {
      const { done, value } = await chunks.next();
      expect(done, 'the stream ended before its finish reason').toBe(false);
      text += value.choices[0]?.delta.content ?? '';
      if (value.choices[0]?.finish_reason != null) break;
    }
    expect(text.split(' ').filter(Boolean)).toHaveLength(12);

    // The end waits for the usage to reach Redis. The sink gives up after 2 s; this is well within.
    const end = chunks.next();
    let ended = false;
    void end.then(() => (ended = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ended, 'the end of the stream left before its usage was staged').toBe(false);

    proxy.resume();
    expect((await end).done).toBe(true);
  });
});
