export * from './upstream-endpoint.ts';
export * from './upstream-client.ts';
export * from './simulator/index.ts';
