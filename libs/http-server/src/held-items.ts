/**
 * What a server holds while requests are in flight (open streams, forwarded requests), for a
 * shutdown or a timer to visit: added and removed once per request, by the handle `add` returns.
 *
 * Not a `Set`: V8 rehashes a Set whose deletions fill its table into a new table, and the old
 * table keeps its entries and a pointer to the new one. Once a full collection has moved the
 * live table to the old generation, every later table hangs off a dead old one, so the young
 * collector keeps each table, and the requests it held, until they are promoted. Under load that
 * chain never ends: Redis mode, whose streams are held while their usage is staged, grew the
 * old generation 8 KB a request and made every scavenge three times as slow
 * (docs/performance.md, "The Set that promoted every request"). An array with swap-removal
 * has no such link: a grown backing store does not point to the next.
 */
export class HeldItems<T> {
  readonly #slots: Slot<T>[] = [];

  /** Holds `item` until the returned function is called (once; later calls do nothing). */
  add(item: T): () => void {
    const slot: Slot<T> = { item, index: this.#slots.length };
    this.#slots.push(slot);
    return () => this.#remove(slot);
  }

  get size(): number {
    return this.#slots.length;
  }

  /** A copy, so that what a visit does (a write that ends a stream, say) cannot disturb it. */
  values(): T[] {
    return this.#slots.map((slot) => slot.item);
  }

  clear(): void {
    for (const slot of this.#slots) slot.index = -1;
    this.#slots.length = 0;
  }

  #remove(slot: Slot<T>): void {
    const index = slot.index;
    if (index < 0) return;
    slot.index = -1;
    const last = this.#slots.pop() as Slot<T>;
    if (last === slot) return;
    this.#slots[index] = last;
    last.index = index;
  }
}

interface Slot<T> {
  readonly item: T;
  /** Where it sits in the list; -1 once removed. */
  index: number;
}
