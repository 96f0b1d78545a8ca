export type * from './wire-format.ts';
export type * from './answer-writer.ts';
export * from './route.ts';
export * from './registry.ts';
export * from './write-error.ts';
