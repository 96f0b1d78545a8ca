export type * from './wire-format.ts';
