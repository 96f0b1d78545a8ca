import type { CanonicalUsage, GatewayError } from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';
import type { RelayMonitor } from '../wire-format.ts';

/**
 * What every format's relay monitor has in common, held once here instead of in each: the state
 * it reports (usage, finished, error) and how it stops reading (fail, finish, end). A class
 * rather than an object literal with getters because a monitor is created per stream and pushed
 * once per token: an instance is about 1 µs cheaper to create, and its fields are plain slots.
 *
 * `finished` and `error` are plain fields (the router reads both after every event); they are
 * written only by the monitor itself, callers see them readonly through RelayMonitor. `usage`
 * is an accessor over `knownUsage` so that a monitor that reads usage lazily (generate-content)
 * can override it. Once `ended` is set, push() reads nothing more and end() reports nothing.
 */
export abstract class RelayMonitorState implements RelayMonitor {
  finished = false;
  error: GatewayError | undefined;
  protected ended = false;
  protected knownUsage: CanonicalUsage | undefined;

  get usage(): CanonicalUsage | undefined {
    return this.knownUsage;
  }

  abstract push(event: SseEvent): void;

  end(): GatewayError | undefined {
    if (this.ended) return undefined;
    this.ended = true;
    return this.endOfStream();
  }

  /**
   * The upstream closed while the monitor was still reading (called by the first end() only):
   * the truncation error the decoder's end() would report, or undefined where EOF is the
   * normal end of the format's stream (having set `finished`).
   */
  protected abstract endOfStream(): GatewayError | undefined;

  /** Where the decoder would have emitted an `error` part. */
  protected fail(cause: GatewayError): void {
    this.ended = true;
    this.error = cause;
  }

  /** Where the decoder would have emitted `finish`. */
  protected finish(): void {
    this.ended = true;
    this.finished = true;
  }
}
