export type * from './snapshot.ts';
export * from './hash-key.ts';
export * from './build-snapshot.ts';
export * from './catalog-index.ts';
export * from './catalog-source.ts';
export * from './internal-token.ts';
