import type { GatewayError } from '@switchyard/canonical';
import { HeldItems } from '@switchyard/http-server';

/**
 * The streams this router is relaying. On shutdown, streams still open when the grace period
 * ends are closed with their format's error event (never cut silently, protocols.md §7.3).
 */
export class ActiveStreams {
  readonly #streams = new HeldItems<(error: GatewayError) => void>();

  add(terminate: (error: GatewayError) => void): () => void {
    return this.#streams.add(terminate);
  }

  get size(): number {
    return this.#streams.size;
  }

  terminateAll(error: GatewayError): void {
    for (const terminate of this.#streams.values()) terminate(error);
  }
}
