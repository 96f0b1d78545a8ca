import { redisTest } from '@switchyard/testkit';
import { describe, expect, it } from 'vitest';
import { createMemoryResponseStore } from './memory-response-store.ts';
import { createRedisResponseStore } from './redis-response-store.ts';
import type { ResponseStore, StoredResponse } from './response-store.ts';

const stored: StoredResponse = {
  id: 'resp_1',
  tenantId: 'acme',
  conversation: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  body: '{"id":"resp_1"}',
};

async function checkContract(store: ResponseStore): Promise<void> {
  await store.save(stored);
  expect(await store.load('acme', 'resp_1')).toEqual(stored);
  // Tenant isolation: the same id under another tenant does not exist.
  expect(await store.load('globex', 'resp_1')).toBeUndefined();
  expect(await store.delete('globex', 'resp_1')).toBe(false);
  expect(await store.delete('acme', 'resp_1')).toBe(true);
  expect(await store.load('acme', 'resp_1')).toBeUndefined();
}

describe('response stores', () => {
  redisTest('should keep responses per tenant in Redis', async ({ redisUrl }) => {
    const store = createRedisResponseStore({ url: redisUrl });
    try {
      await checkContract(store);
    } finally {
      await store.close();
    }
  });

  it('should keep responses per tenant in memory', async () => {
    await checkContract(createMemoryResponseStore());
  });

  it('should expire entries after the TTL in memory', async () => {
    const store = createMemoryResponseStore({ ttlSeconds: 0 });
    await store.save(stored);
    expect(await store.load('acme', 'resp_1')).toBeUndefined();
  });
});
