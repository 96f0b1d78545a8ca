import type { PlannedUsage, ReplyPlan } from './plan-reply.ts';
import type { RenderContext, ReplyRenderer } from './reply-renderer.ts';

type JsonRecord = Record<string, unknown>;

/** OpenAI totals include cache reads and reasoning (protocols.md §10.6). */
function renderUsage(usage: PlannedUsage): JsonRecord {
  const input = usage.input + usage.cached;
  const output = usage.output + usage.reasoning;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cached },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage.reasoning },
    total_tokens: input + output,
  };
}

function reasoningItem(plan: ReplyPlan, context: RenderContext): JsonRecord {
  const item: JsonRecord = {
    id: `rs_${context.id}`,
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: plan.reasoningText }],
  };
  if (context.request.encryptedReasoning) {
    item.encrypted_content = Buffer.from(`simulated-reasoning:${plan.signature}`).toString('base64');
  }
  return item;
}

function messageItem(plan: ReplyPlan, context: RenderContext): JsonRecord {
  return {
    id: `msg_${context.id}`,
    type: 'message',
    status: plan.finish === 'length' ? 'incomplete' : 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text: plan.text, annotations: [], logprobs: [] }],
  };
}

/** A final output item with the deltas that stream it and the full text they add up to. */
interface OutputEntry {
  item: JsonRecord;
  pieces: string[];
  text: string;
}

function outputEntries(plan: ReplyPlan, context: RenderContext): OutputEntry[] {
  const entries: OutputEntry[] = [];
  if (plan.reasoningText !== '') {
    entries.push({ item: reasoningItem(plan, context), pieces: plan.reasoningPieces, text: plan.reasoningText });
  }
  plan.toolCalls.forEach((call, index) => {
    const item = {
      id: `fc_${context.id}_${index}`,
      type: 'function_call',
      status: 'completed',
      call_id: `call_${context.id}_${index}`,
      name: call.name,
      arguments: call.argumentsJson,
    };
    entries.push({ item, pieces: call.argumentPieces, text: call.argumentsJson });
  });
  if (plan.toolCalls.length === 0) entries.push({ item: messageItem(plan, context), pieces: plan.textPieces, text: plan.text });
  return entries;
}

/** protocols.md §4.2; `output` and `usage` are empty until the terminal event. */
function responseObject(plan: ReplyPlan, context: RenderContext, output: JsonRecord[] | undefined): JsonRecord {
  const incomplete = plan.finish === 'length';
  return {
    id: `resp_${context.id}`,
    object: 'response',
    created_at: context.created,
    status: output === undefined ? 'in_progress' : incomplete ? 'incomplete' : 'completed',
    error: null,
    incomplete_details: output !== undefined && incomplete ? { reason: 'max_output_tokens' } : null,
    instructions: null,
    max_output_tokens: context.request.maxOutputTokens ?? null,
    model: context.request.model,
    output: output ?? [],
    parallel_tool_calls: context.request.parallelToolCalls,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    temperature: 1,
    text: { format: { type: context.request.json === undefined ? 'text' : 'json_object' } },
    tool_choice: context.request.toolMode,
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: output === undefined || plan.usage === undefined ? null : renderUsage(plan.usage),
    metadata: {},
  };
}

function renderBody(plan: ReplyPlan, context: RenderContext): string {
  return JSON.stringify(responseObject(plan, context, outputEntries(plan, context).map((entry) => entry.item)));
}

/** The events that open, fill and close one output item (protocols.md §4.4). */
function itemEvents({ item, pieces, text }: OutputEntry, outputIndex: number): JsonRecord[] {
  const at = { item_id: item.id, output_index: outputIndex };
  const added = (shell: JsonRecord) => ({ type: 'response.output_item.added', output_index: outputIndex, item: shell });
  const done = { type: 'response.output_item.done', output_index: outputIndex, item };
  if (item.type === 'reasoning') {
    const summary = { ...at, summary_index: 0 };
    const summaryPart = (partText: string) => ({ type: 'summary_text', text: partText });
    return [
      added({ id: item.id, type: 'reasoning', summary: [] }),
      { type: 'response.reasoning_summary_part.added', ...summary, part: summaryPart('') },
      ...pieces.map((delta) => ({ type: 'response.reasoning_summary_text.delta', ...summary, delta })),
      { type: 'response.reasoning_summary_text.done', ...summary, text },
      { type: 'response.reasoning_summary_part.done', ...summary, part: summaryPart(text) },
      done,
    ];
  }
  if (item.type === 'function_call') {
    return [
      added({ ...item, arguments: '', status: 'in_progress' }),
      ...pieces.map((delta) => ({ type: 'response.function_call_arguments.delta', ...at, delta })),
      { type: 'response.function_call_arguments.done', ...at, arguments: text, name: item.name },
      done,
    ];
  }
  const part = { ...at, content_index: 0 };
  const textPart = (partText: string) => ({ type: 'output_text', text: partText, annotations: [], logprobs: [] });
  return [
    added({ ...item, status: 'in_progress', content: [] }),
    { type: 'response.content_part.added', ...part, part: textPart('') },
    ...pieces.map((delta) => ({ type: 'response.output_text.delta', ...part, delta, logprobs: [] })),
    { type: 'response.output_text.done', ...part, text, logprobs: [] },
    { type: 'response.content_part.done', ...part, part: textPart(text) },
    done,
  ];
}

function renderEvents(plan: ReplyPlan, context: RenderContext): string[] {
  const entries = outputEntries(plan, context);
  const inProgress = responseObject(plan, context, undefined);
  const final = responseObject(plan, context, entries.map((entry) => entry.item));
  const events: JsonRecord[] = [
    { type: 'response.created', response: inProgress },
    { type: 'response.in_progress', response: inProgress },
    ...entries.flatMap(itemEvents),
    { type: final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', response: final },
  ];
  return events.map(({ type, ...rest }, sequence) =>
    `event: ${type as string}\ndata: ${JSON.stringify({ type, sequence_number: sequence, ...rest })}\n\n`,
  );
}

export const responsesRenderer: ReplyRenderer = {
  renderBody,
  renderEvents,
  renderStreamError: (sent) =>
    `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'server_error', message: `Simulated failure after ${sent} events.`, param: null, sequence_number: sent })}\n\n`,
  malformedEvent: 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",\n\n',
};
