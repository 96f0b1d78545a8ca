export * from './response-store.ts';
export * from './memory-response-store.ts';
export * from './signature-store.ts';
