import type { ReplyPlan } from './plan-reply.ts';
import type { SimulationRequest } from './simulation-request.ts';

/** Per-response values every format needs; the id is unique per request, not per input. */
export interface RenderContext {
  id: string;
  created: number;
  request: SimulationRequest;
}

/** How one vendor format writes a planned reply: whole, as SSE events, and when it breaks. */
export interface ReplyRenderer {
  renderBody(plan: ReplyPlan, context: RenderContext): string;
  /** Complete SSE events (framing included), in order; the writer paces and cuts them. */
  renderEvents(plan: ReplyPlan, context: RenderContext): string[];
  /** The vendor's in-band error event, sent after `sent` events (protocols.md §7.3). */
  renderStreamError(sent: number, context: RenderContext): string;
  /** One event whose data is not JSON, in the format's own framing. */
  malformedEvent: string;
}
