interface BoundedCall {
  deadline: number;
  settled: boolean;
  /** Given a fresh bound once already, after this process stalled past its deadline. */
  extended: boolean;
  reject: (error: Error) => void;
}

/** Past this many settled calls at the head, the queue drops them in one go. */
const COMPACT_AT = 1024;

/**
 * What a settled call holds instead of its promise's reject: the queue keeps a settled call
 * until the calls before it have settled and a thousand more have come (or, when traffic
 * stops, until its deadline), and the promise, with its result, would live that long too, long
 * enough to be promoted out of the young generation.
 */
const SETTLED = (): void => {};

/**
 * Bounds calls to `ms` each, with one timer for all of them rather than one per call: every
 * call gets the same bound, so deadlines come in the order calls start, and only the oldest
 * pending call's deadline needs a timer. The limiter bounds each script call, which carries a
 * turn's operations of one tenant; a timer, a race and a `finally` for each of a request's
 * three operations were a fifth of its garbage.
 *
 * The verdict waits for one more turn of the event loop after the timer (setImmediate runs
 * after the I/O poll), so a reply that arrived while this process was busy — a cold start, a
 * burst of requests to parse — is read first. Timers run before I/O in each turn: without that
 * turn, a loop stalled for longer than the bound would time out every call in flight, answer
 * them from the per-process fallback and admit past the shared limit although Redis had
 * answered at once.
 *
 * That turn is not enough when the call had not even left: a call made just before a stall is
 * sent after it, and its reply needs a round trip more. So when the timer fires later
 * than a whole bound past its time — this process, not the server, used up the bound — each call
 * it finds overdue gets one fresh bound from then, once: a server that is really hung still
 * fails the call, within about twice the bound plus the stall.
 */
export function createCallBound(ms: number, describe: () => Error): <T>(work: Promise<T>) => Promise<T> {
  const calls: BoundedCall[] = [];
  let head = 0;
  let timer: NodeJS.Timeout | undefined;
  /** When the armed timer is due (the head call's deadline). */
  let dueAt = 0;

  function arm(): void {
    while (head < calls.length && (calls[head] as BoundedCall).settled) head++;
    if (head === calls.length) {
      calls.length = 0;
      head = 0;
      return;
    }
    if (head >= COMPACT_AT) {
      calls.splice(0, head);
      head = 0;
    }
    if (timer !== undefined) return;
    dueAt = (calls[head] as BoundedCall).deadline;
    timer = setTimeout(expire, Math.max(0, dueAt - performance.now()));
  }

  function expire(): void {
    setImmediate(() => {
      timer = undefined;
      const now = performance.now();
      const stalled = now - dueAt > ms;
      while (head < calls.length) {
        const call = calls[head] as BoundedCall;
        if (!call.settled) {
          if (call.deadline > now) break;
          if (stalled && !call.extended) {
            // Queued again at the end, where its new deadline keeps the queue in deadline order.
            call.extended = true;
            call.deadline = now + ms;
            calls.push(call);
          } else {
            call.settled = true;
            call.reject(describe());
            call.reject = SETTLED;
          }
        }
        head++;
      }
      arm();
    });
  }

  return <T>(work: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const call: BoundedCall = { deadline: performance.now() + ms, settled: false, extended: false, reject };
      calls.push(call);
      arm();
      work.then(
        (value) => {
          if (call.settled) return;
          call.settled = true;
          call.reject = SETTLED;
          resolve(value);
        },
        (error: unknown) => {
          if (call.settled) return;
          call.settled = true;
          call.reject = SETTLED;
          reject(error as Error);
        },
      );
    });
}
