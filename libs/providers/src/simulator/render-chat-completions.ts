import type { FinishReason, PlannedUsage, ReplyPlan } from './plan-reply.ts';
import type { RenderContext, ReplyRenderer } from './reply-renderer.ts';

const FINISH_REASONS: Record<FinishReason, string> = {
  stop: 'stop',
  stop_sequence: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
};

function callId(context: RenderContext, index: number): string {
  return `call_${context.id}_${index}`;
}

/** OpenAI totals include cache reads and reasoning (protocols.md §10.6). */
function renderUsage(usage: PlannedUsage): object {
  const prompt = usage.input + usage.cached;
  const completion = usage.output + usage.reasoning;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: usage.cached, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function renderBody(plan: ReplyPlan, context: RenderContext): string {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: plan.toolCalls.length > 0 && plan.text === '' ? null : plan.text,
    refusal: null,
  };
  // vLLM/DeepSeek convention; not part of OpenAI's format (protocols.md §3.5).
  if (plan.reasoningText !== '') message.reasoning_content = plan.reasoningText;
  if (plan.toolCalls.length > 0) {
    message.tool_calls = plan.toolCalls.map((call, index) => ({
      id: callId(context, index),
      type: 'function',
      function: { name: call.name, arguments: call.argumentsJson },
    }));
  }
  const body: Record<string, unknown> = {
    id: `chatcmpl-${context.id}`,
    object: 'chat.completion',
    created: context.created,
    model: context.request.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: FINISH_REASONS[plan.finish] }],
    system_fingerprint: 'fp_simulator',
    service_tier: 'default',
  };
  if (plan.usage !== undefined) body.usage = renderUsage(plan.usage);
  return JSON.stringify(body);
}

/** protocols.md §3.5: role chunk, deltas, finish chunk, optional usage chunk, [DONE]. */
function renderEvents(plan: ReplyPlan, context: RenderContext): string[] {
  const includeUsage = context.request.includeUsage && plan.usage !== undefined;
  // Every chunk repeats the same envelope; build it once and splice each delta in.
  const envelope = `data: {"id":"chatcmpl-${context.id}","object":"chat.completion.chunk","created":${context.created},"model":${JSON.stringify(context.request.model)},`;
  const usageTail = includeUsage ? ',"usage":null}\n\n' : '}\n\n';
  const chunk = (delta: object, finish = 'null'): string =>
    `${envelope}"choices":[{"index":0,"delta":${JSON.stringify(delta)},"finish_reason":${finish}}]${usageTail}`;

  const events = [chunk({ role: 'assistant', content: '' })];
  for (const piece of plan.reasoningPieces) events.push(chunk({ reasoning_content: piece }));
  for (const piece of plan.textPieces) events.push(chunk({ content: piece }));
  plan.toolCalls.forEach((call, index) => {
    events.push(
      chunk({ tool_calls: [{ index, id: callId(context, index), type: 'function', function: { name: call.name, arguments: '' } }] }),
    );
    for (const piece of call.argumentPieces) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(chunk({}, JSON.stringify(FINISH_REASONS[plan.finish])));
  if (includeUsage && plan.usage !== undefined) {
    events.push(`${envelope}"choices":[],"usage":${JSON.stringify(renderUsage(plan.usage))}}\n\n`);
  }
  events.push('data: [DONE]\n\n');
  return events;
}

export const chatCompletionsRenderer: ReplyRenderer = {
  renderBody,
  renderEvents,
  // No [DONE] after an error: openai-node throws on the error chunk (protocols.md §7.3).
  renderStreamError: (sent) =>
    `data: ${JSON.stringify({ error: { message: `Simulated failure after ${sent} events.`, type: 'server_error', param: null, code: 'server_error' } })}\n\n`,
  malformedEvent: 'data: {"id":"chatcmpl-broken","choices":[{\n\n',
};
