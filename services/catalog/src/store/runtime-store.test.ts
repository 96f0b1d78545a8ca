import { redisTest } from '@switchyard/testkit';
import { Redis } from 'ioredis';
import { describe, expect, onTestFinished, vi } from 'vitest';
import { storeModes } from '../testing/store-test.ts';
import { CATALOG_CHANGES_CHANNEL, CATALOG_KEYS, keyField } from './keys.ts';
import { createMemoryRuntimeStore } from './memory-runtime-store.ts';
import { createRedisRuntimeStore } from './redis-runtime-store.ts';
import { StoreRejection, type RuntimeStore, type StoredKey, type StoredTenant } from './runtime-store.ts';

async function openStore(redisUrl: string | undefined): Promise<RuntimeStore> {
  const store = redisUrl === undefined ? createMemoryRuntimeStore() : await createRedisRuntimeStore({ url: redisUrl });
  onTestFinished(() => store.close());
  return store;
}

const AT = '2026-01-01T00:00:00.000Z';

function tenant(id: string): StoredTenant {
  return { id, models: ['*'], limits: {}, createdAt: AT, updatedAt: AT };
}

function key(tenantId: string, id: string): StoredKey {
  return { id, tenantId, sha256: `${id}`.padEnd(64, '0'), limits: {}, createdAt: AT, updatedAt: AT };
}

async function rejection(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof StoreRejection) return error.reason;
    throw error;
  }
  return undefined;
}

for (const { mode, storeTest } of storeModes) {
  describe(`runtime store ${mode}`, () => {
    storeTest('should bump the version on every change and only on changes', async ({ redisUrl }) => {
      const store = await openStore(redisUrl);
      const { version: first } = await store.announceConfig('config-a');
      const created = await store.createTenant(tenant('acme'));
      expect(created).toBe(first + 1);
      expect(await rejection(store.createTenant(tenant('acme')))).toBe('tenant_exists');
      expect(await store.readVersion()).toBe(created);
      const { version: updated } = await store.updateTenant('acme', (current) => ({ ...current, limits: { rpm: 5 } }));
      expect(updated).toBe(created + 1);
      const state = await store.read();
      expect(state.version).toBe(updated);
      expect(state.tenants.get('acme')?.limits).toEqual({ rpm: 5 });
    });

    storeTest('should bump for a config only when its fingerprint changes, or when forced', async ({ redisUrl }) => {
      const store = await openStore(redisUrl);
      const first = await store.announceConfig('config-a');
      expect(first.changed).toBe(true);
      expect(await store.announceConfig('config-a')).toEqual({ version: first.version, changed: false });
      expect(await store.announceConfig('config-a', { force: true })).toEqual({ version: first.version + 1, changed: true });
      expect(await store.announceConfig('config-b')).toEqual({ version: first.version + 2, changed: true });
      expect((await store.read()).configFingerprint).toBe('config-b');
    });

    storeTest('should delete the keys of a deleted tenant, and only its keys', async ({ redisUrl }) => {
      const store = await openStore(redisUrl);
      await store.createTenant(tenant('acme'));
      await store.createTenant(tenant('acme-2'));
      await store.createKey(key('acme', 'a'), { requireStoredTenant: true });
      await store.createKey(key('acme', 'b'), { requireStoredTenant: true });
      await store.createKey(key('acme-2', 'a'), { requireStoredTenant: true });
      expect((await store.deleteTenant('acme')).deletedKeys).toBe(2);
      const state = await store.read();
      expect([...state.keys.keys()]).toEqual([keyField('acme-2', 'a')]);
      expect(await rejection(store.deleteTenant('acme'))).toBe('tenant_not_found');
    });

    storeTest('should refuse a key for a runtime tenant that is gone, and a duplicate key', async ({ redisUrl }) => {
      const store = await openStore(redisUrl);
      expect(await rejection(store.createKey(key('ghost', 'a'), { requireStoredTenant: true }))).toBe('tenant_not_found');
      // A config tenant is not in the store: its keys are not checked against it.
      await store.createKey(key('from-config', 'a'), { requireStoredTenant: false });
      expect(await rejection(store.createKey(key('from-config', 'a'), { requireStoredTenant: false }))).toBe('key_exists');
    });

    storeTest('should start a re-created tenant without the keys of its predecessor', async ({ redisUrl }) => {
      const store = await openStore(redisUrl);
      // A key left behind by a config tenant that was removed from the file.
      await store.createKey(key('acme', 'left-behind'), { requireStoredTenant: false });
      await store.createTenant(tenant('acme'));
      expect((await store.read()).keys.size).toBe(0);
    });

    storeTest('should update and delete keys, refusing unknown ones', async ({ redisUrl }) => {
      const store = await openStore(redisUrl);
      await store.createKey(key('acme', 'a'), { requireStoredTenant: false });
      const { key: updated } = await store.updateKey('acme', 'a', (current) => ({ ...current, models: ['fast-chat'] }));
      expect(updated.models).toEqual(['fast-chat']);
      expect((await store.read()).keys.get(keyField('acme', 'a'))?.models).toEqual(['fast-chat']);
      await store.deleteKey('acme', 'a');
      expect(await rejection(store.deleteKey('acme', 'a'))).toBe('key_not_found');
      expect(await rejection(store.updateKey('acme', 'a', (current) => current))).toBe('key_not_found');
    });

    storeTest('should tell listeners about changes', async ({ redisUrl }) => {
      const store = await openStore(redisUrl);
      const seen: Array<number | undefined> = [];
      store.onChange((version) => seen.push(version));
      const version = await store.createTenant(tenant('acme'));
      await vi.waitFor(() => expect(seen).toContain(version));
    });
  });
}

describe('redis runtime store', () => {
  redisTest('should lose no write when replicas update one tenant concurrently', async ({ redisUrl }) => {
    const replicas = await Promise.all([0, 1, 2].map(() => createRedisRuntimeStore({ url: redisUrl })));
    onTestFinished(() => Promise.all(replicas.map((replica) => replica.close())).then(() => undefined));
    await replicas[0]?.createTenant(tenant('acme'));
    const models = Array.from({ length: 30 }, (_, index) => `model-${index}`);
    await Promise.all(
      models.map((model, index) =>
        (replicas[index % 3] as RuntimeStore).updateTenant('acme', (current) => ({ ...current, models: [...current.models, model] })),
      ),
    );
    const state = await replicas[1]?.read();
    expect(new Set(state?.tenants.get('acme')?.models)).toEqual(new Set(['*', ...models]));
    expect(state?.version).toBe((await replicas[2]?.readVersion()) ?? -1);
  });

  redisTest('should publish every version on the changes channel and keep only hashes', async ({ redisUrl }) => {
    const listener = new Redis(redisUrl);
    onTestFinished(() => listener.disconnect());
    const published: string[] = [];
    listener.on('message', (_channel: string, message: string) => published.push(message));
    await listener.subscribe(CATALOG_CHANGES_CHANNEL);
    const store = await openStore(redisUrl);
    const version = await store.createKey(key('acme', 'a'), { requireStoredTenant: false });
    await vi.waitFor(() => expect(published).toContain(String(version)));
    const raw = await listener.duplicate().hgetall(CATALOG_KEYS.keys);
    expect(Object.keys(raw)).toEqual(['acme/a']);
  });

  redisTest('should start the version from the clock on an empty Redis', async ({ redisUrl }) => {
    const store = await openStore(redisUrl);
    const before = Date.now();
    const { version } = await store.announceConfig('config-a');
    expect(version).toBeGreaterThanOrEqual(before - 5_000);
    expect(version).toBeLessThanOrEqual(Date.now() + 5_000);
  });

  redisTest('should fail to start when Redis cannot be reached', async () => {
    await expect(createRedisRuntimeStore({ url: 'redis://127.0.0.1:1', connectTimeoutMs: 300 })).rejects.toThrow(/not reachable/);
  });
});
