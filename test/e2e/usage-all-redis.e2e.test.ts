import Anthropic from '@anthropic-ai/sdk';
import { getFreePort, startRedis, type RedisServer } from '@switchyard/testkit';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatModelConfig } from './support/replicas.ts';
import { writeConfig } from './support/scratch.ts';
import { startSwitchyard, type SwitchyardProcess } from './support/start-process.ts';

const ADMIN_TOKEN = 'admin-token-usage-all-redis-0123456789ab';
const KEY = 'sk-sy-usage-all-redis-key-0123456789abcd';

interface Row {
  requests: number;
  streamRequests: number;
  inputTokens: number;
  outputTokens: number;
}

/**
 * `all` with Redis records its usage in the Redis aggregates itself, before an answer's last
 * byte, with no queue between (docs/architecture.md, "Usage in `all`"): the totals are exact the
 * moment the last answer has ended, whatever the clients' formats, streamed or not.
 */
describe('usage of switchyard all with Redis', () => {
  let redis: RedisServer;
  let simulator: SwitchyardProcess;
  let all: SwitchyardProcess;

  beforeAll(async () => {
    redis = await startRedis();
    simulator = await startSwitchyard('simulator', { port: await getFreePort(), readyPath: '/_sim/stats' });
    const config = writeConfig(chatModelConfig(simulator.url, [`{ id: t, keys: [{ id: k, key: ${KEY} }] }`]));
    all = await startSwitchyard('all', { port: await getFreePort(), config, env: { REDIS_URL: redis.url, SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN } });
  }, 60_000);

  afterAll(async () => {
    await all?.stop();
    await simulator?.stop();
    await redis?.stop();
  });

  it('should count every answered request, with the tokens its client saw, by the time it has ended', async () => {
    const openai = new OpenAI({ baseURL: `${all.url}/v1`, apiKey: KEY, maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: all.url, apiKey: KEY, maxRetries: 0 });
    const seen = { requests: 0, streamRequests: 0, inputTokens: 0, outputTokens: 0 };
    const count = (stream: boolean, input: number, output: number): void => {
      seen.requests += 1;
      seen.streamRequests += stream ? 1 : 0;
      seen.inputTokens += input;
      seen.outputTokens += output;
    };

    await Promise.all(
      Array.from({ length: 8 }, async (_, index) => {
        const content = `request ${index} [[sim:words=${3 + index}]]`;
        const chat = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content }] });
        count(false, chat.usage?.prompt_tokens ?? -1, chat.usage?.completion_tokens ?? -1);

        const stream = await openai.chat.completions.create({ model: 'm', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content }] });
        let usage: OpenAI.CompletionUsage | undefined;
        for await (const chunk of stream) usage = chunk.usage ?? usage;
        count(true, usage?.prompt_tokens ?? -1, usage?.completion_tokens ?? -1);

        const message = await anthropic.messages.stream({ model: 'm', max_tokens: 64, messages: [{ role: 'user', content }] }).finalMessage();
        count(true, message.usage.input_tokens, message.usage.output_tokens);
      }),
    );

    // Asked at once: an answer's end waited for its usage to be recorded, so nothing is in flight.
    const day = new Date().toISOString().slice(0, 10);
    const response = await fetch(`${all.url}/admin/v1/usage?tenant=t&groupBy=day&from=${day}&to=${day}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.status).toBe(200);
    const [row, ...rest] = ((await response.json()) as { data: Row[] }).data;
    expect(rest).toEqual([]);
    expect({ requests: row?.requests, streamRequests: row?.streamRequests, inputTokens: row?.inputTokens, outputTokens: row?.outputTokens }).toEqual(seen);
    expect(seen.requests).toBe(24);
    expect(seen.inputTokens).toBeGreaterThan(0);
  });
});
