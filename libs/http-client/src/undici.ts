import { createRequire } from 'node:module';
import type * as Undici from 'undici';

/*
 * The parts of undici the gateway uses, loaded without undici's index. The index loads all of
 * undici (fetch, WebSocket, the cache and mock agents, proxy agents: 109 files): what the
 * gateway never runs cost `all` 2.4 MB of heap and 3 MB of RSS at rest (docs/performance.md,
 * "undici without its index"). These paths are undici's own files, not its public entry points,
 * so `undici.test.ts` checks that they are the classes the index exports: an upgrade that moves
 * them fails there, not in production.
 */
const require = createRequire(import.meta.url);

const Dispatcher = require('undici/lib/dispatcher/dispatcher.js') as typeof Undici.Dispatcher;
// What the index does on load: `request`, `stream` and the rest are mixed into every dispatcher.
Object.assign(Dispatcher.prototype, require('undici/lib/api/index.js'));

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
export type Agent = Undici.Agent;
export const Pool = require('undici/lib/dispatcher/pool.js') as typeof Undici.Pool;
export type Pool = Undici.Pool;
export const errors = require('undici/lib/core/errors.js') as typeof Undici.errors;
