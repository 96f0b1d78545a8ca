import type { RedisServer } from './redis-server.ts';
import { startRedisProcess } from './start-redis-process.ts';

/**
 * How long a container runtime may take to answer before tests fall back to a local
 * redis-server. A runtime that exists answers in milliseconds; a dead socket must not cost
 * every test file seconds.
 */
const RUNTIME_CHECK_TIMEOUT_MS = 2_000;

let runtimeAvailable: Promise<boolean> | undefined;

/**
 * Starts an empty Redis for a test: a `redis:7` container when a container runtime answers,
 * otherwise a `redis-server` child process. `SWITCHYARD_TEST_REDIS=process|container` forces
 * one (e.g. the faster process on a laptop that also runs Docker).
 */
export async function startRedis(): Promise<RedisServer> {
  const forced = process.env.SWITCHYARD_TEST_REDIS;
  if (forced === 'process') return startRedisProcess();
  if (forced === 'container' || (await hasContainerRuntime())) {
    // Loaded on demand: testcontainers is heavy and the process path never needs it.
    const { startRedisContainer } = await import('./start-redis-container.ts');
    return startRedisContainer();
  }
  return startRedisProcess();
}

/** Asks testcontainers (which knows DOCKER_HOST, Podman, rootless sockets) once per process. */
export function hasContainerRuntime(): Promise<boolean> {
  runtimeAvailable ??= detectContainerRuntime();
  return runtimeAvailable;
}

async function detectContainerRuntime(): Promise<boolean> {
  const { getContainerRuntimeClient } = await import('testcontainers');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), RUNTIME_CHECK_TIMEOUT_MS);
  });
  const check = getContainerRuntimeClient().then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([check, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
