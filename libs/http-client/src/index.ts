export { Agent, Pool, errors } from './undici.ts';
