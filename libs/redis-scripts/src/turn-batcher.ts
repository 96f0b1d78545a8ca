interface Pending<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/** Sends one batch; the results come back in the order of the items. */
export type SendBatch<Item, Result> = (items: readonly Item[]) => Promise<readonly Result[]>;

/**
 * Collects the calls made in one turn of the event loop and sends those of each group as one
 * batch, in the order they were made. A Redis call costs the caller a socket write, a reply to
 * parse and the client's bookkeeping, more than a short script itself: under load one turn
 * finishes many requests, and their calls now share one (docs/performance.md). The group is the
 * tenant, where keys are hash-tagged per tenant: a script may only touch keys of one Cluster slot.
 *
 * A batch leaves at the end of the turn it was made in (setImmediate runs after the I/O poll)
 * and never waits for an earlier one, so a call is never held behind one that hangs: once its
 * caller has given up and moved on, it cannot still be sent.
 */
export function createTurnBatcher<Item, Result>(
  send: SendBatch<Item, Result>,
  /** Most calls in one batch; more in one turn go as several, in order (a burst must not build one huge command). */
  maxBatch = 500,
): (group: string, item: Item) => Promise<Result> {
  let pending = new Map<string, Array<Pending<Item, Result>>>();
  let scheduled = false;

  function flush(): void {
    scheduled = false;
    const batches = pending;
    pending = new Map();
    for (const batch of batches.values()) {
      if (batch.length <= maxBatch) sendBatch(batch);
      else for (let start = 0; start < batch.length; start += maxBatch) sendBatch(batch.slice(start, start + maxBatch));
    }
  }

  function sendBatch(batch: Array<Pending<Item, Result>>): void {
    const rejectAll = (error: unknown): void => {
      for (const { reject } of batch) reject(error);
    };
    let sending: Promise<readonly Result[]>;
    try {
      sending = send(batch.map(({ item }) => item));
    } catch (error) {
      rejectAll(error);
      return;
    }
    sending.then((results) => {
      if (results.length !== batch.length) {
        rejectAll(new Error(`a batch of ${batch.length} calls answered ${results.length} results`));
        return;
      }
      // Indexed: an entry array per call would be garbage on every Redis round trip.
      for (let index = 0; index < batch.length; index++) (batch[index] as Pending<Item, Result>).resolve(results[index] as Result);
    }, rejectAll);
  }

  return (group, item) =>
    new Promise<Result>((resolve, reject) => {
      const batch = pending.get(group);
      if (batch === undefined) pending.set(group, [{ item, resolve, reject }]);
      else batch.push({ item, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}
