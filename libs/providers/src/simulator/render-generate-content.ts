import type { PlannedUsage, ReplyPlan } from './plan-reply.ts';
import type { RenderContext, ReplyRenderer } from './reply-renderer.ts';

type JsonRecord = Record<string, unknown>;

/** A 1×1 transparent PNG: the smallest image every decoder accepts. */
export const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** promptTokenCount includes the cache; candidatesTokenCount excludes thoughts (§10.6). */
function renderUsage(usage: PlannedUsage): JsonRecord {
  const prompt = usage.input + usage.cached;
  const rendered: JsonRecord = {
    promptTokenCount: prompt,
    candidatesTokenCount: usage.output,
    totalTokenCount: prompt + usage.output + usage.reasoning,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }],
  };
  if (usage.cached > 0) rendered.cachedContentTokenCount = usage.cached;
  if (usage.reasoning > 0) rendered.thoughtsTokenCount = usage.reasoning;
  return rendered;
}

/**
 * The parts of the reply, each of which a stream sends as its own chunk. Gemini attaches the
 * thought signature to the first part that is not a thought.
 */
function replyParts(plan: ReplyPlan, context: RenderContext, streamed: boolean): JsonRecord[] {
  const parts: JsonRecord[] = [];
  if (context.request.reasoningVisible && plan.reasoningText !== '') {
    const thoughts = streamed ? plan.reasoningPieces : [plan.reasoningText];
    for (const text of thoughts) parts.push({ text, thought: true });
  }
  const firstAnswer = parts.length;
  if (plan.text !== '') for (const text of streamed ? plan.textPieces : [plan.text]) parts.push({ text });
  plan.toolCalls.forEach((call, index) => {
    parts.push({ functionCall: { id: `call_${context.id}_${index}`, name: call.name, args: call.arguments } });
  });
  if (context.request.imageOutput) parts.push({ inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } });
  if (parts.length === firstAnswer) parts.push({ text: '' });
  if (plan.reasoningText !== '') {
    const first = parts[firstAnswer] as JsonRecord;
    first.thoughtSignature = Buffer.from(`sig-${plan.signature}`).toString('base64');
  }
  return parts;
}

function response(parts: JsonRecord[], plan: ReplyPlan, context: RenderContext, last: boolean): JsonRecord {
  const candidate: JsonRecord = { content: { role: 'model', parts }, index: 0 };
  const body: JsonRecord = { candidates: [candidate] };
  if (last) {
    candidate.finishReason = plan.finish === 'length' ? 'MAX_TOKENS' : 'STOP';
    if (plan.usage !== undefined) body.usageMetadata = renderUsage(plan.usage);
  }
  body.modelVersion = context.request.model;
  body.responseId = context.id;
  return body;
}

/** One self-contained GenerateContentResponse per part; the last carries finish and usage (§6.4). */
export function renderGenerateContentChunks(plan: ReplyPlan, context: RenderContext): string[] {
  const parts = replyParts(plan, context, true);
  return parts.map((part, index) => JSON.stringify(response([part], plan, context, index === parts.length - 1)));
}

export const generateContentRenderer: ReplyRenderer = {
  renderBody: (plan, context) => JSON.stringify(response(replyParts(plan, context, false), plan, context, true)),
  // No event: lines and CRLF separators, like the SDK's own fixtures (protocols.md §2).
  renderEvents: (plan, context) => renderGenerateContentChunks(plan, context).map((chunk) => `data: ${chunk}\r\n\r\n`),
  renderStreamError: (sent) =>
    `data: ${JSON.stringify({ error: { code: 500, message: `Simulated failure after ${sent} events.`, status: 'INTERNAL' } })}\r\n\r\n`,
  malformedEvent: 'data: {"candidates":[\r\n\r\n',
};
