import { GatewayError, type CanonicalResponse, type ContentPart } from '@switchyard/canonical';
import { createId } from '../shared/index.ts';
import type { ResponseContext } from '../wire-format.ts';
import { convertAnswerPartToGemini, convertPartToCanonical, type GeminiPart } from './convert-parts.ts';
import { convertUsageFromCanonical, convertUsageToCanonical } from './convert-usage.ts';
import { mapFinishReasonFromCanonical, mapFinishReasonToCanonical } from './map-finish-reason.ts';
import { generateContentResponseSchema } from './response-schema.ts';

/**
 * A Gemini upstream's answer → canonical (protocols.md §6.3). Only the first candidate is read
 * (translation serves n = 1). Media the model generated (`inlineData`) becomes a file part.
 */
export function responseToCanonical(body: unknown): CanonicalResponse {
  const parsed = generateContentResponseSchema.safeParse(body);
  if (!parsed.success) {
    throw new GatewayError('upstream_error', 'The upstream answer is not a GenerateContentResponse.', { cause: parsed.error });
  }
  const response = parsed.data;
  const candidate = response.candidates?.[0];
  const content = (candidate?.content?.parts ?? []).flatMap((part) => convertPartToCanonical(part, 'file') ?? []);
  return {
    id: response.responseId ?? createId('resp_'),
    model: response.modelVersion ?? '',
    created: Math.floor(Date.now() / 1000),
    content,
    finishReason: mapFinishReasonToCanonical({
      finishReason: candidate?.finishReason,
      blockReason: response.promptFeedback?.blockReason,
      sawToolCall: content.some((part) => part.type === 'tool-call'),
    }),
    usage: convertUsageToCanonical(response.usageMetadata),
  };
}

/** Canonical → the answer a Gemini client expects; `modelVersion` echoes the model it asked for. */
export function responseFromCanonical(response: CanonicalResponse, context: ResponseContext): unknown {
  const parts = convertAnswerParts(context.includeReasoning === true ? response.content : response.content.flatMap(hideThoughtText));
  return {
    candidates: [
      {
        // A candidate with nothing to say (a filtered answer) has a content without parts, as Gemini sends it.
        content: parts.length > 0 ? { role: 'model', parts } : { role: 'model' },
        finishReason: mapFinishReasonFromCanonical(response.finishReason),
        index: 0,
      },
    ],
    usageMetadata: convertUsageFromCanonical(response.usage),
    modelVersion: context.model,
    responseId: response.id,
  };
}

function convertAnswerParts(content: ContentPart[]): GeminiPart[] {
  return content.flatMap<GeminiPart>((part, index) => convertAnswerPartToGemini(part, `candidates[0].content.parts[${index}]`) ?? []);
}

/**
 * Without `includeThoughts` Gemini sends no thought text, but a signature still rides along
 * (the next turn needs it): keep the signature on an empty thought, drop the rest.
 */
function hideThoughtText(part: ContentPart): ContentPart[] {
  if (part.type !== 'reasoning') return [part];
  return part.signature === undefined ? [] : [{ ...part, text: '' }];
}
