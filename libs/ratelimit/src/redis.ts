// The Redis limiter, apart from the package's index so that a process without Redis never
// loads ioredis (docs/performance.md, Memory).
export { createRedisLimiter, type RedisLimiterOptions, type StoreFailurePolicy } from './redis-limiter.ts';
