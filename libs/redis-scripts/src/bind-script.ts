import { ReplyError, type Redis } from 'ioredis';
import type { LoadedScript } from './load-script.ts';

/**
 * Runs a bound script: the number of keys, then its keys and arguments as one array (ioredis
 * flattens it; spreading a batch into arguments would copy it twice). Resolves to the script's
 * reply, whose type the caller names.
 */
export type RunScript<Reply> = (numberOfKeys: number, keysAndArguments: string[]) => Promise<Reply>;

type Mode = 'function' | 'eval' | undefined;

/**
 * Runs a script on one connection as a Redis Function where the server has them (Redis ≥ 7,
 * Valkey), by EVALSHA otherwise. EVALSHA runs a script's whole top level on every call; for the
 * limiter's batch script, with its dozens of local functions, that was most of what a call cost
 * Redis (an empty batch: 15.2 µs by EVALSHA, 4.3 as a Function; docs/performance.md). A Function
 * library runs its top level once, at FUNCTION LOAD.
 *
 * The library is loaded when the connection opens, or at the first call should that come
 * first. A server that refuses it (no FUNCTION command in Redis 6.2, an ACL, a proxy) is sent
 * EVALSHA from then on, as is one that loads it but refuses FCALL; one that cannot take it for
 * the moment (loading, out of memory, a replica) fails that call and is asked again at the next.
 * A server that lost it (a restart without persistence, FUNCTION FLUSH) is sent it again, once;
 * should the function still be missing after that, the connection goes on with EVALSHA.
 */
export function bindScript<Reply>(redis: Redis, script: LoadedScript): RunScript<Reply> {
  const { library, lua } = script;
  if (library === undefined) throw new Error('bindScript takes a script that ends in `return <entry>(KEYS, ARGV)`');
  const { name, code, sha } = library;
  let mode: Mode;
  let loading: Promise<void> | undefined;

  const evaluate = (numberOfKeys: number, args: string[]): Promise<Reply> =>
    (redis.evalsha(sha, numberOfKeys, args) as Promise<Reply>).catch((error: unknown) => {
      if (replyCode(error) !== 'NOSCRIPT') throw error;
      return redis.eval(lua, numberOfKeys, args) as Promise<Reply>;
    });

  function load(): Promise<void> {
    loading ??= redis.function('LOAD', code).then(
      () => {
        mode = 'function';
      },
      (error: unknown) => {
        loading = undefined;
        // Loaded before: by this process before a reconnect, or by another replica of this release.
        if (replyText(error)?.endsWith('already exists') === true) mode = 'function';
        // The server answered no: it has no Functions, or not for this user.
        else if (!isPassing(error)) mode = 'eval';
        // No answer (not connected, timed out), or a passing state: this call fails, the next one tries again.
        else throw error;
      },
    );
    return loading;
  }

  // Loaded as the connection opens, and again whenever it reopens (the server may have restarted
  // without its data), so that a request rarely waits for a load or pays a call that missed.
  redis.on('ready', () => {
    // A first load still in flight was sent on this connection already.
    if (mode === undefined && loading !== undefined) return;
    loading = undefined;
    load().catch(() => {});
  });

  function run(numberOfKeys: number, args: string[], reloaded: boolean): Promise<Reply> {
    if (mode === 'eval') return evaluate(numberOfKeys, args);
    if (mode === undefined) return load().then(() => run(numberOfKeys, args, reloaded));
    return (redis.fcall(name, numberOfKeys, args) as Promise<Reply>).catch((error: unknown) => {
      // A user allowed to load Functions but not to call them.
      if (replyCode(error) === 'NOPERM') {
        mode = 'eval';
        return evaluate(numberOfKeys, args);
      }
      if (replyText(error)?.includes('Function not found') !== true) throw error;
      if (reloaded) {
        mode = 'eval';
        return evaluate(numberOfKeys, args);
      }
      if (mode === 'function') {
        mode = undefined;
        loading = undefined;
      }
      return run(numberOfKeys, args, true);
    });
  }

  return (numberOfKeys, args) => run(numberOfKeys, args, false);
}

/**
 * Error codes of a server that cannot take the load now but may soon (still loading its data,
 * busy with a script, out of memory, a replica, a cluster re-sharding): no reason to give up
 * Functions for good.
 */
const PASSING = new Set(['LOADING', 'BUSY', 'OOM', 'READONLY', 'MASTERDOWN', 'TRYAGAIN', 'CLUSTERDOWN']);

/** True for a failure that is no answer on Functions: no reply at all, or a passing state. */
function isPassing(error: unknown): boolean {
  const code = replyCode(error);
  return code === undefined || PASSING.has(code);
}

/** The text of a server's error reply; undefined for any other failure (no connection, a timeout). */
function replyText(error: unknown): string | undefined {
  return error instanceof (ReplyError as ErrorConstructor) ? error.message : undefined;
}

/** The error code a server's error reply starts with (`ERR`, `NOSCRIPT`, `NOPERM`, …). */
function replyCode(error: unknown): string | undefined {
  return replyText(error)?.split(' ', 1)[0];
}
