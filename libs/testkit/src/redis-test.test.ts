import { describe, expect } from 'vitest';
import { redisTest } from './redis-test.ts';
import { sendRedisCommand } from './send-redis-command.ts';

// The two tests run in order and share the file's server: the second proves the first's write
// was flushed.
describe('redisTest', () => {
  redisTest('should hand a test the url of a working server', async ({ redisUrl }) => {
    expect(await sendRedisCommand(redisUrl, ['SET', 'from-first-test', '1'])).toBe('+OK');
  });

  redisTest('should flush what the previous test wrote', async ({ redisUrl }) => {
    expect(await sendRedisCommand(redisUrl, ['EXISTS', 'from-first-test'])).toBe(':0');
  });
});
