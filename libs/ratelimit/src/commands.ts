import { join } from 'node:path';
import { bindScript, loadScript, type RunScript } from '@switchyard/redis-scripts';
import type { Redis } from 'ioredis';
import { keyScopeKeys, tenantScopeKeys, type ScopeKeys } from './keys.ts';
import type { AdmissionResult, LimitScope, LimitSet, RefusedLimit, WindowState } from './limiter.ts';

type ScopeKeyTuple = [requests: string, tokens: string, concurrency: string, budget: string];
type LimitTuple = readonly [rpm: string, tpm: string, concurrency: string, dailyTokens: string, monthlyTokens: string];

type AdmitKeys = readonly [...tenantKeys: ScopeKeyTuple, ...keyKeys: ScopeKeyTuple];
type ReleaseKeys = readonly [tenantConcurrencyKey: string, keyConcurrencyKey: string];
type ReconcileKeys = readonly [tenantTokensKey: string, tenantBudgetKey: string, keyTokensKey: string, keyBudgetKey: string];

/**
 * One operation of lua/run-batch-n.lua: its code, keys and arguments in the order the script
 * reads them. The keys are shared by every operation of the same kind on the same API key
 * (operationKeys): read, never changed.
 */
export type LimiterOperation =
  | { code: 'a'; keys: AdmitKeys; args: AdmitArguments }
  | { code: 'r'; keys: ReleaseKeys; args: [requestId: string] }
  | { code: 'c'; keys: ReconcileKeys; args: ReconcileArguments };

type AdmitArguments = [now: string, requestId: string, cost: string, leaseMs: string, ...tenantLimits: LimitTuple, ...keyLimits: LimitTuple];

type ReconcileArguments = [
  now: string,
  deltaTokens: string,
  admittedAt: string,
  tenantHasTpm: string,
  tenantHasBudget: string,
  keyHasTpm: string,
  keyHasBudget: string,
];

/** What each operation on one API key sends as its keys. */
export interface OperationKeys {
  admit: AdmitKeys;
  release: ReleaseKeys;
  reconcile: ReconcileKeys;
}

/**
 * Kept per API key's names, which keyScopeKeys keeps (the same object for every call), so an
 * operation's keys are one shared array, not three built a request (and gone with the names).
 */
const keptOperationKeys = new WeakMap<ScopeKeys, OperationKeys>();

export function operationKeys(tenantId: string, keyId: string): OperationKeys {
  const key = keyScopeKeys(tenantId, keyId);
  let kept = keptOperationKeys.get(key);
  if (kept === undefined) {
    const tenant = tenantScopeKeys(tenantId);
    kept = Object.freeze({
      admit: Object.freeze([tenant.requests, tenant.tokens, tenant.concurrency, tenant.budget, key.requests, key.tokens, key.concurrency, key.budget] as const),
      release: Object.freeze([tenant.concurrency, key.concurrency] as const),
      reconcile: Object.freeze([tenant.tokens, tenant.budget, key.tokens, key.budget] as const),
    });
    keptOperationKeys.set(key, kept);
  }
  return kept;
}

/** How many integers each operation adds to the script's reply. */
export const REPLY_LENGTH: Record<LimiterOperation['code'], number> = { a: 12, r: 1, c: 0 };

const LUA_DIRECTORY = join(import.meta.dirname, 'lua');

/**
 * lua/run-batch-n.lua on one connection (as a Function where Redis has them, see bindScript):
 * the number of keys, then the keys, the operation codes and the arguments as one array. It
 * replies the operations' integers as one string, separated by commas.
 */
export type RunBatch = RunScript<string>;

export function bindRunBatch(redis: Redis): RunBatch {
  return bindScript<string>(redis, loadScript(LUA_DIRECTORY, 'run-batch-n.lua'));
}

/** The reply of each operation, in order: one script call runs them all (lua/run-batch-n.lua). */
export async function runOperations(runBatch: RunBatch, operations: readonly LimiterOperation[]): Promise<number[][]> {
  const { keys, codes, args } = encodeOperations(operations);
  const reply = await runBatch(keys.length, keys.concat(codes, args));
  const values = decodeReply(reply);
  const replies: number[][] = [];
  let at = 0;
  for (const operation of operations) {
    const length = REPLY_LENGTH[operation.code];
    replies.push(values.slice(at, at + length));
    at += length;
  }
  if (at !== values.length) throw new Error(`limiter batch replied with ${values.length} integers, expected ${at}`);
  return replies;
}

/** The script's integers, as Redis would have replied them one by one (truncated toward zero). */
export function decodeReply(reply: string): number[] {
  if (reply === '') return [];
  const values = reply.split(',');
  const integers = new Array<number>(values.length);
  for (let index = 0; index < values.length; index++) integers[index] = Math.trunc(Number(values[index]));
  return integers;
}

/** Per kind, its code when it repeats the last one of its kind, and the arguments that are its own then. */
const REPEATS = {
  a: { code: 'A', own: [1, 2] },
  r: { code: 'R', own: [0] },
  c: { code: 'C', own: [1, 2] },
} as const satisfies Record<LimiterOperation['code'], { code: string; own: readonly number[] }>;

/**
 * The script's keys, codes and arguments for a batch. An operation whose keys and shared
 * arguments are those of the last one of its kind sent whole goes as its repeat, with only its
 * own arguments: most of a busy batch is one API key admitting under the same limits.
 */
export function encodeOperations(operations: readonly LimiterOperation[]): { keys: string[]; codes: string; args: string[] } {
  const keys: string[] = [];
  const args: string[] = [];
  let codes = '';
  const sentWhole: Partial<Record<LimiterOperation['code'], LimiterOperation>> = {};
  for (const operation of operations) {
    const repeat = REPEATS[operation.code];
    const previous = sentWhole[operation.code];
    if (previous !== undefined && sharesAllBut(previous, operation, repeat.own)) {
      codes += repeat.code;
      for (const index of repeat.own) args.push(operation.args[index] as string);
      continue;
    }
    sentWhole[operation.code] = operation;
    codes += operation.code;
    for (const key of operation.keys) keys.push(key);
    for (const arg of operation.args) args.push(arg);
  }
  return { keys, codes, args };
}

function sharesAllBut(previous: LimiterOperation, operation: LimiterOperation, own: readonly number[]): boolean {
  // Keys are shared per API key (operationKeys): the same array, or at least the same names.
  if (operation.keys !== previous.keys) {
    for (let index = 0; index < operation.keys.length; index++) {
      if (operation.keys[index] !== previous.keys[index]) return false;
    }
  }
  for (let index = 0; index < operation.args.length; index++) {
    if (operation.args[index] !== previous.args[index] && !own.includes(index)) return false;
  }
  return true;
}

/** `now` is undefined in production: the script then reads the server's clock. */
export function encodeNow(now: number | undefined): string {
  return now === undefined ? '' : String(now);
}

export function encodeFlag(value: boolean): string {
  return value ? '1' : '0';
}

/** An absent limit travels as ''. */
export function encodeLimit(value: number | undefined): string {
  return value === undefined ? '' : String(value);
}

/**
 * A limit set's arguments, encoded once per set: admissions pass the catalog's own tenant and
 * key limit objects, which the catalog never changes (a new version brings new objects).
 */
const encodedLimits = new WeakMap<LimitSet, LimitTuple>();

export function encodeLimits(limits: LimitSet): LimitTuple {
  let encoded = encodedLimits.get(limits);
  if (encoded === undefined) {
    encoded = Object.freeze([
      encodeLimit(limits.rpm),
      encodeLimit(limits.tpm),
      encodeLimit(limits.concurrency),
      encodeLimit(limits.dailyTokens),
      encodeLimit(limits.monthlyTokens),
    ] as const);
    encodedLimits.set(limits, encoded);
  }
  return encoded;
}

const LIMIT_CODES: Record<number, RefusedLimit> = { 1: 'requests', 2: 'tokens', 3: 'concurrency', 4: 'budget' };
const SCOPE_CODES: Record<number, LimitScope> = { 1: 'tenant', 2: 'key' };

/**
 * Turns an admission's twelve integers of the script's reply back into the result the memory
 * limiter would build, as Redis decided it (not degraded). Built in place: spreading optional
 * fields in made four objects an admission to keep one.
 */
export function decodeAdmitReply(reply: readonly number[]): AdmissionResult {
  if (reply.length !== REPLY_LENGTH.a) throw new Error(`admit replied with ${reply.length} fields, expected ${REPLY_LENGTH.a}`);
  const [allowed, limitCode, scopeCode, retryAfterMs, exceedsLimit] = reply as [number, number, number, number, number];
  let result: AdmissionResult;
  if (allowed === 1) {
    result = { allowed: true, retryAfterMs: 0, admittedAt: reply[11] as number, degraded: false };
  } else {
    const limit = LIMIT_CODES[limitCode];
    const scope = SCOPE_CODES[scopeCode];
    if (limit === undefined || scope === undefined) throw new Error(`admit script refused with unknown limit ${limitCode} or scope ${scopeCode}`);
    result = { allowed: false, limit, scope, retryAfterMs, degraded: false };
    if (exceedsLimit === 1) result.exceedsLimit = true;
  }
  const requests = decodeWindow(reply, 5);
  if (requests !== undefined) result.requests = requests;
  const tokens = decodeWindow(reply, 8);
  if (tokens !== undefined) result.tokens = tokens;
  return result;
}

function decodeWindow(reply: readonly number[], at: number): WindowState | undefined {
  const limit = reply[at] as number;
  return limit === -1 ? undefined : { limit, remaining: reply[at + 1] as number, resetMs: reply[at + 2] as number };
}
