// The Redis stores, apart from the package's index so that a process without Redis never
// loads ioredis (docs/performance.md, Memory).
export * from './redis-response-store.ts';
export * from './redis-signature-store.ts';
