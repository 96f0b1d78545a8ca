import type { ServerResponse } from 'node:http';
import { pauseResponse } from './pause-response.ts';
import type { SimulatorKnobs } from './simulator-knobs.ts';

const disconnectedOnPurpose = new WeakSet<ServerResponse>();

/** Whether the stream was cut by `disconnect_after_chunks` rather than by the client. */
export function wasDisconnectedOnPurpose(response: ServerResponse): boolean {
  return disconnectedOnPurpose.has(response);
}

export interface StreamFaults {
  /** The vendor's in-band error after `sent` events. */
  streamError(sent: number): string;
  malformedEvent: string;
}

function eventDelay(knobs: SimulatorKnobs): number {
  if (knobs.chunk_delay_ms > 0) return knobs.chunk_delay_ms;
  return knobs.tokens_per_second > 0 ? 1000 / knobs.tokens_per_second : 0;
}

/** Whether any knob changes how the events go out; if not, one write does it all. */
function needsPacing(knobs: SimulatorKnobs): boolean {
  return (
    knobs.ttft_ms > 0 ||
    eventDelay(knobs) > 0 ||
    knobs.fail_after_chunks >= 0 ||
    knobs.disconnect_after_chunks >= 0 ||
    knobs.malformed
  );
}

/**
 * Send the SSE events of one reply after the headers: at once, or paced by `ttft_ms` and
 * `chunk_delay_ms` / `tokens_per_second`, and broken by `fail_after_chunks`,
 * `disconnect_after_chunks` or `malformed`. Stops as soon as the client is gone.
 */
export async function writeEventStream(
  response: ServerResponse,
  events: readonly string[],
  knobs: SimulatorKnobs,
  faults: StreamFaults,
): Promise<void> {
  if (!needsPacing(knobs)) {
    response.end(events.join(''));
    return;
  }
  const sequence = knobs.malformed ? [...events.slice(0, 1), faults.malformedEvent, ...events.slice(1)] : events;
  const delay = eventDelay(knobs);
  // Headers now, so a client measuring time to first token sees the stream open before it.
  if (knobs.ttft_ms > 0) response.flushHeaders();
  for (let index = 0; index < sequence.length; index += 1) {
    if (index === knobs.fail_after_chunks) {
      response.end(faults.streamError(index));
      return;
    }
    if (index === knobs.disconnect_after_chunks) {
      // No terminator, no error event: the connection just dies mid-stream. The events already
      // written are still corked by node:http until the end of this tick, and Node 24.22 drops
      // what a corked socket holds when it is ended: end it a turn later, once they have left.
      disconnectedOnPurpose.add(response);
      const socket = response.socket;
      setImmediate(() => socket?.end(() => socket.destroy()));
      return;
    }
    const wait = index === 0 ? knobs.ttft_ms : delay;
    if (wait > 0 && !(await pauseResponse(response, wait))) return;
    response.write(sequence[index]);
  }
  response.end();
}
