import { startRedis, type RedisServer } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatModelConfig, postChat, startReplicas, type Replicas } from './support/replicas.ts';
import { CHANGE_PROPAGATION_MS, reloadBySighup } from './support/sighup.ts';

const KEEP_KEY = 'sk-sy-sighup-keep-key-0123456789abcdef';
const ADDED_KEY = 'sk-sy-sighup-added-key-0123456789abcde';
const KEEP_TENANT = `{ id: keep, keys: [{ id: k, key: ${KEEP_KEY} }] }`;

/** SIGHUP to a catalog process in split mode: the edited file reaches every ingress over HTTP. */
describe('config reload on SIGHUP, catalog process with two ingresses', () => {
  let redis: RedisServer;
  let replicas: Replicas;

  beforeAll(async () => {
    redis = await startRedis();
    replicas = await startReplicas({ redisUrl: redis.url, ingresses: 2, linkConfig: true, config: (simulatorUrl) => chatModelConfig(simulatorUrl, [KEEP_TENANT]) });
  }, 60_000);

  afterAll(async () => {
    await replicas?.stop();
    await redis?.stop();
  });

  it('should serve a tenant added to the file on every ingress within 2 s of SIGHUP, and not before it', async () => {
    const { heldBefore, elapsedMs } = await reloadBySighup(
      replicas.catalog,
      replicas.configFile,
      chatModelConfig(replicas.simulator.url, [KEEP_TENANT, `{ id: added, keys: [{ id: k, key: ${ADDED_KEY} }] }`]),
      replicas.ingresses.map((ingress) => async () => (await postChat(ingress.url, ADDED_KEY, 'added by reload')).status === 200),
    );
    expect(heldBefore).toEqual([false, false]);
    for (const ms of elapsedMs) expect(ms).toBeLessThan(CHANGE_PROPAGATION_MS);
    expect(await replicas.catalog.waitForOutput('"msg":"config reload"')).toBe(true);
    for (const ingress of replicas.ingresses) expect((await postChat(ingress.url, KEEP_KEY, 'kept')).status).toBe(200);
    for (const process of replicas.processes) expect(process.child.exitCode).toBeNull();
  });
});
