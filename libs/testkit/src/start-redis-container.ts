import { GenericContainer, getContainerRuntimeClient } from 'testcontainers';
import { getFreePort } from './get-free-port.ts';
import type { RedisServer } from './redis-server.ts';
import { waitForRedis } from './send-redis-command.ts';

const IMAGE = 'redis:7';

/**
 * Runs `redis:7` in a container. The host port is fixed (not Docker-assigned) so `restart()`
 * keeps the URL, which outage tests depend on.
 */
export async function startRedisContainer(): Promise<RedisServer> {
  const port = await getFreePort();
  const container = await new GenericContainer(IMAGE)
    .withCommand(['redis-server', '--save', '', '--appendonly', 'no'])
    .withExposedPorts({ container: 6379, host: port })
    .start();
  const url = `redis://${container.getHost()}:${port}`;
  await waitForRedis(url);
  let stopped = false;

  return {
    url,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await container.stop();
    },
    kill: async () => {
      const client = await getContainerRuntimeClient();
      // dockerode's kill sends SIGKILL unless told otherwise.
      await client.container.getById(container.getId()).kill();
    },
    restart: async () => {
      await container.restart();
      await waitForRedis(url);
    },
  };
}
