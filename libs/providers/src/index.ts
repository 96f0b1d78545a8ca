export * from './upstream-endpoint.ts';
export * from './upstream-client.ts';
