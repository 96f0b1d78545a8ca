import type { FinishReason, PlannedUsage, ReplyPlan } from './plan-reply.ts';
import type { RenderContext, ReplyRenderer } from './reply-renderer.ts';

type JsonRecord = Record<string, unknown>;

const STOP_REASONS: Record<FinishReason, string> = {
  stop: 'end_turn',
  stop_sequence: 'stop_sequence',
  length: 'max_tokens',
  tool_calls: 'tool_use',
};

const NO_USAGE: PlannedUsage = { input: 0, cached: 0, output: 0, reasoning: 0 };

/**
 * input_tokens excludes cache reads; output_tokens includes thinking (protocols.md §10.6).
 * Messages streams cannot leave usage out (the SDK reads it), so `no_usage` reports zeros.
 */
function renderUsage(usage: PlannedUsage, outputTokens: number): JsonRecord {
  const rendered: JsonRecord = {
    input_tokens: usage.input,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: usage.cached,
    output_tokens: outputTokens,
  };
  if (usage.reasoning > 0) rendered.output_tokens_details = { thinking_tokens: usage.reasoning };
  return rendered;
}

function totalOutput(usage: PlannedUsage): number {
  return usage.output + usage.reasoning;
}

/** A final content block with the deltas that stream it. */
interface BlockEntry {
  block: JsonRecord;
  pieces: string[];
}

function contentEntries(plan: ReplyPlan, context: RenderContext): BlockEntry[] {
  const entries: BlockEntry[] = [];
  if (plan.reasoningText !== '') {
    entries.push({ block: { type: 'thinking', thinking: plan.reasoningText, signature: `sig-${plan.signature}` }, pieces: plan.reasoningPieces });
  }
  // The API never sends an empty text block (and rejects one on input).
  if (plan.text !== '') entries.push({ block: { type: 'text', text: plan.text }, pieces: plan.textPieces });
  plan.toolCalls.forEach((call, index) => {
    const block = { type: 'tool_use', id: `toolu_${context.id}_${index}`, name: call.name, input: call.arguments };
    entries.push({ block, pieces: call.argumentPieces });
  });
  return entries;
}

function renderBody(plan: ReplyPlan, context: RenderContext): string {
  const usage = plan.usage ?? NO_USAGE;
  return JSON.stringify({
    id: `msg_${context.id}`,
    type: 'message',
    role: 'assistant',
    model: context.request.model,
    content: contentEntries(plan, context).map((entry) => entry.block),
    stop_reason: STOP_REASONS[plan.finish],
    stop_sequence: plan.stopSequence ?? null,
    usage: { ...renderUsage(usage, totalOutput(usage)), service_tier: 'standard' },
  });
}

/** Start, deltas and stop of one block (protocols.md §5.5). */
function blockEvents({ block, pieces }: BlockEntry, index: number): JsonRecord[] {
  const delta = (payload: JsonRecord) => ({ type: 'content_block_delta', index, delta: payload });
  const start = (shell: JsonRecord) => ({ type: 'content_block_start', index, content_block: shell });
  const stop = { type: 'content_block_stop', index };
  if (block.type === 'thinking') {
    return [
      start({ type: 'thinking', thinking: '', signature: '' }),
      ...pieces.map((thinking) => delta({ type: 'thinking_delta', thinking })),
      delta({ type: 'signature_delta', signature: block.signature }),
      stop,
    ];
  }
  if (block.type === 'text') {
    return [start({ type: 'text', text: '' }), ...pieces.map((text) => delta({ type: 'text_delta', text })), stop];
  }
  return [
    start({ ...block, input: {} }),
    // The API's first fragment is usually empty; clients must cope, so the simulator does it too.
    ...['', ...pieces].map((partial_json) => delta({ type: 'input_json_delta', partial_json })),
    stop,
  ];
}

function renderEvents(plan: ReplyPlan, context: RenderContext): string[] {
  const usage = plan.usage ?? NO_USAGE;
  const start = {
    type: 'message_start',
    message: {
      id: `msg_${context.id}`,
      type: 'message',
      role: 'assistant',
      model: context.request.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      // Like the API: input counts up front, a token of output; the real count comes at the end.
      usage: renderUsage(usage, Math.min(1, totalOutput(usage))),
    },
  };
  const blockStream = contentEntries(plan, context).flatMap(blockEvents);
  // The API pings early, right after the first block opens.
  blockStream.splice(blockStream.length === 0 ? 0 : 1, 0, { type: 'ping' });
  const events: JsonRecord[] = [
    start,
    ...blockStream,
    {
      type: 'message_delta',
      delta: { stop_reason: STOP_REASONS[plan.finish], stop_sequence: plan.stopSequence ?? null },
      usage: renderUsage(usage, totalOutput(usage)),
    },
    { type: 'message_stop' },
  ];
  return events.map((event) => `event: ${event.type as string}\ndata: ${JSON.stringify(event)}\n\n`);
}

export const messagesRenderer: ReplyRenderer = {
  renderBody,
  renderEvents,
  renderStreamError: () => 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
  malformedEvent: 'event: content_block_delta\ndata: {"type":"content_block_delta",\n\n',
};
