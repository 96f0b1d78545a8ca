export * from './schema.ts';
export * from './load-config.ts';
