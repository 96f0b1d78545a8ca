import { redisTest } from '@switchyard/testkit';
import { test } from 'vitest';

/**
 * Runs a test body in both store modes: `redisUrl` is undefined in memory mode and a flushed
 * real Redis (testkit) otherwise, so each behaviour is checked for both with one body.
 */
const memoryTest = test.extend('redisUrl', async (): Promise<string | undefined> => undefined);

export const storeModes = [
  { mode: 'in memory', storeTest: memoryTest },
  { mode: 'on Redis', storeTest: redisTest as unknown as typeof memoryTest },
] as const;
