export type * from './sse-event.ts';
export * from './create-sse-parser.ts';
export * from './format-sse-event.ts';
