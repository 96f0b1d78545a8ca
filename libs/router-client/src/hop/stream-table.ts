/**
 * A hop connection's streams by id, added and removed once per request.
 *
 * Not a `Map`: V8 rehashes a churned Map into a new table that the old one points to and keeps
 * its entries, so once a full collection has moved the live table to the old generation every
 * later table, and the streams it held, survives young collections and is promoted
 * (docs/performance.md, "The Set that promoted every request"). Integer keys of a
 * null-prototype object live in V8's element store, a number dictionary once they are sparse,
 * and its rehash leaves no link from the old table to the new.
 */
export class StreamTable<T> {
  #byId: Record<number, T> = Object.create(null) as Record<number, T>;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  get(id: number): T | undefined {
    return this.#byId[id];
  }

  has(id: number): boolean {
    return this.#byId[id] !== undefined;
  }

  set(id: number, value: T): void {
    if (this.#byId[id] === undefined) this.#size++;
    this.#byId[id] = value;
  }

  /** True when `id` was there. */
  delete(id: number): boolean {
    if (this.#byId[id] === undefined) return false;
    delete this.#byId[id];
    this.#size--;
    return true;
  }

  values(): T[] {
    return Object.values(this.#byId);
  }

  clear(): void {
    this.#byId = Object.create(null) as Record<number, T>;
    this.#size = 0;
  }
}
