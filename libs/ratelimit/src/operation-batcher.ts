import { REPLY_LENGTH, type LimiterOperation } from './commands.ts';

interface Pending {
  operation: LimiterOperation;
  resolve: (reply: number[]) => void;
  reject: (error: unknown) => void;
}

/** Sends one batch: the number of keys, then the keys, the operation codes and the arguments. */
export type SendBatch = (numberOfKeys: number, keysCodesAndArguments: string[]) => Promise<number[]>;

/**
 * Collects the limiter operations issued in one turn of the event loop and sends those of each
 * tenant as one script call (lua/run-batch-n.lua), in the order they were issued. Each Redis
 * call costs this process a socket write, a reply to parse and the client's bookkeeping, more
 * than the script itself: under load a turn admits, releases and reconciles many requests,
 * and they now share one call (docs/performance.md).
 *
 * A batch leaves at the end of the turn it was made in (setImmediate runs after the I/O poll)
 * and never waits for an earlier one, so an operation is never held behind a call that hangs:
 * once its caller has given up and answered from the fallback, it cannot still be sent and
 * charge the request a second time. Per tenant, because a script may only touch keys of one
 * Cluster slot and a tenant's keys share one (keys.ts).
 */
export function createOperationBatcher(send: SendBatch): (tenantId: string, operation: LimiterOperation) => Promise<number[]> {
  let pending = new Map<string, Pending[]>();
  let scheduled = false;

  function flush(): void {
    scheduled = false;
    const batches = pending;
    pending = new Map();
    for (const batch of batches.values()) sendBatch(batch);
  }

  function sendBatch(batch: Pending[]): void {
    const keys: string[] = [];
    const args: string[] = [];
    let codes = '';
    let replyLength = 0;
    for (const { operation } of batch) {
      codes += operation.code;
      replyLength += REPLY_LENGTH[operation.code];
      for (const key of operation.keys) keys.push(key);
      for (const arg of operation.args) args.push(arg);
    }
    const numberOfKeys = keys.length;
    keys.push(codes);
    for (const arg of args) keys.push(arg);
    let sending: Promise<number[]>;
    try {
      sending = send(numberOfKeys, keys);
    } catch (error) {
      sending = Promise.reject(error);
    }
    sending.then(
      (reply) => {
        if (reply.length !== replyLength) {
          const error = new Error(`limiter batch replied with ${reply.length} integers, expected ${replyLength}`);
          for (const { reject } of batch) reject(error);
          return;
        }
        let at = 0;
        for (const { operation, resolve } of batch) {
          const length = REPLY_LENGTH[operation.code];
          resolve(reply.slice(at, at + length));
          at += length;
        }
      },
      (error: unknown) => {
        for (const { reject } of batch) reject(error);
      },
    );
  }

  return (tenantId, operation) =>
    new Promise<number[]>((resolve, reject) => {
      const batch = pending.get(tenantId);
      if (batch === undefined) pending.set(tenantId, [{ operation, resolve, reject }]);
      else batch.push({ operation, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}
