import { errors } from '@switchyard/http-client';
import type { Dispatcher } from 'undici';

/**
 * The abort wiring of an undici dispatch handler whose request follows an AbortSignal: an
 * abort that comes before the request has a controller is kept and applied when it starts, a
 * later one aborts it at once (`abort()`, which a handler may extend). A handler calls
 * `unlisten()` once its exchange is over, so a finished one is not kept by a long-lived signal
 * and does not keep the request's controller (its raw headers, the request body) for as long
 * as its reader holds it.
 */
export abstract class AbortableDispatch implements Dispatcher.DispatchHandler {
  #signal: AbortSignal | null = null;
  /** Why the signal aborted before the request had a controller to abort. */
  #reason: Error | null = null;
  protected controller: Dispatcher.DispatchController | null = null;

  constructor(signal: AbortSignal) {
    if (signal.aborted) {
      this.#reason = abortReason(signal);
    } else {
      this.#signal = signal;
      signal.addEventListener('abort', this.#onAbort);
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.#reason !== null) {
      controller.abort(this.#reason);
      return;
    }
    this.controller = controller;
  }

  /** The signal aborted while the request was under way. */
  protected abort(controller: Dispatcher.DispatchController, reason: Error): void {
    controller.abort(reason);
  }

  protected unlisten(): void {
    this.#signal?.removeEventListener('abort', this.#onAbort);
    this.#signal = null;
    this.controller = null;
  }

  #onAbort = (): void => {
    const reason = abortReason(this.#signal as AbortSignal);
    if (this.controller === null) this.#reason = reason;
    else this.abort(this.controller, reason);
  };
}

/** The signal's reason, or undici's own abort error when it gave none. */
function abortReason(signal: AbortSignal): Error {
  return (signal.reason as Error | undefined) ?? new errors.RequestAbortedError();
}
