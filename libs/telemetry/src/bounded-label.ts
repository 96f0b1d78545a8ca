/**
 * Keeps a label's distinct values under a cap: the first `limit` values seen are kept, the
 * rest are reported as `other`. Tenants and models come from config and API calls, so without
 * a cap one noisy catalog could blow up Prometheus series counts.
 */
export class BoundedLabel {
  readonly #seen = new Set<string>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  value(raw: string): string {
    if (this.#seen.has(raw)) return raw;
    if (this.#seen.size >= this.#limit) return 'other';
    this.#seen.add(raw);
    return raw;
  }
}
