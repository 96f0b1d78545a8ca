export { getFreePort } from './get-free-port.ts';
export type { RedisServer } from './redis-server.ts';
export { startRedis } from './start-redis.ts';
export { redisTest } from './redis-test.ts';
export { RawHttpConnection, type RawAnswer } from './raw-http-connection.ts';
