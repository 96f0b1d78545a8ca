// The Redis sink and aggregator, apart from the package's index so that a process without Redis
// never loads ioredis (docs/performance.md, Memory).
export { createRedisUsageSink, type RedisUsageSink, type RedisUsageSinkOptions } from './redis-usage-sink.ts';
export { createRedisUsageAggregator, type RedisUsageAggregatorOptions } from './redis-usage-aggregator.ts';
