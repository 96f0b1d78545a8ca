import { afterAll } from 'vitest';
import { removeScratch } from './scratch.ts';

// Registered before the file's own hooks, so it runs after them: the processes those stop
// may still read their configs until then.
afterAll(removeScratch);
