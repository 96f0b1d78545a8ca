import { GatewayError } from '@switchyard/canonical';
import { HeldItems } from '@switchyard/http-server';

/**
 * The requests this ingress is relaying from a router. When a shutdown's grace period ends,
 * each is cut from its router and its client gets the format's error event instead of a
 * silently closed stream (protocols.md §7.3).
 */
export class ForwardedRequests {
  readonly #controllers = new HeldItems<AbortController>();

  add(controller: AbortController): () => void {
    return this.#controllers.add(controller);
  }

  terminateAll(): void {
    const reason = new GatewayError('unavailable', 'The gateway is shutting down; the answer was ended before completion.');
    for (const controller of this.#controllers.values()) controller.abort(reason);
  }
}
