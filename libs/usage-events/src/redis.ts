// The BullMQ sink and the Redis aggregator, apart from the package's index so that a process
// without Redis never loads BullMQ or ioredis (docs/performance.md, Memory).
export { createBullmqUsageSink, type BullmqUsageSink, type BullmqUsageSinkOptions } from './bullmq-usage-sink.ts';
export { createRedisUsageAggregator, type RedisUsageAggregatorOptions } from './redis-usage-aggregator.ts';
